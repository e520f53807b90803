#pragma once
// Writes the recorded intervals as a Chrome / Perfetto trace (JSON "traceEvents"): one process
// per rank, one thread per stream, one complete event per kernel; communication is named by op
// and bytes. Timestamps are exact to the nanosecond (microseconds with three decimals).
#include "core/simulation_result.hpp"
#include "workloads/workload.hpp"

#include <ostream>

namespace echo::report {

// Jobs with more ranks get one data-parallel replica in timeline.json (report/timeline_slice.hpp).
inline constexpr std::size_t kFullTimelineRanks = 512;

void write_timeline(std::ostream& out, const core::SimulationResult& result, const workloads::Workload& workload);

} // namespace echo::report
