#pragma once
// run_job: simulate a job and, when it names an output folder, write summary.json and
// timeline.json there. Files appear only after a successful run (written to a temporary name,
// then renamed), so a failed run leaves nothing half-written behind.
#include "collectives/algorithm.hpp"
#include "core/job_spec.hpp"
#include "core/simulation.hpp"
#include "core/simulation_result.hpp"

namespace echo::report {

core::SimulationResult run_job(const core::JobSpec& job, const collectives::AlgorithmSetup& setup = {},
                         const core::ProgressFn& progress = {});

} // namespace echo::report
