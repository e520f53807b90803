#pragma once
// How core times one collective call with the collective model, at a fidelity: `steps` runs the
// algorithm's schedule; `analytic` replaces it by one barrier of the closed-form time (or, for an
// algorithm without one, of its schedule's uncontended time).
#include "collectives/collective_model.hpp"
#include "core/job_spec.hpp"

namespace echo::core {

// The algorithm and protocol lists of a job, checked (UserError names the list's origin).
collectives::NcclSelection selection_for(const CommunicationSpec& spec, const collectives::AlgorithmRegistry& algorithms);

// Schedules beyond this many steps are not built: the call runs at `analytic` fidelity instead
// (a world-size ring AllReduce on 8,192 GPUs would be 134 M steps, about 10 GB).
inline constexpr std::uint64_t kMaxStepsPerCall = std::uint64_t{1} << 22;

struct TimedCall {
  collectives::Plan plan;
  collectives::Schedule schedule;
  bool too_large_for_steps = false;  // ran as `analytic` although the fidelity asked for steps
};
TimedCall time_call(const collectives::CollectiveModel& model, const collectives::CollectiveCall& call, Fidelity fidelity,
                    std::uint64_t max_steps = kMaxStepsPerCall);

} // namespace echo::core
