#pragma once
// report.html: one self-contained page (inline script and style, no network) that shows why an
// iteration takes its time: the headline, a stacked bar per rank (or per group of ranks), a
// zoomable Gantt timeline of a slice of ranks with the critical path drawn on it, the critical
// path's top contributors, and the collectives that took longest with how NCCL ran them.
//
// Sizes stay bounded for any run: at most kMaxBars bars (ranks are grouped beyond), a timeline of
// at most kTimelineRanks ranks (one data-parallel replica across the pipeline stages when the
// trace names its slots dp / tp, else the first ranks) and at most kMaxTimelineItems intervals.
#include "core/simulation_result.hpp"
#include "workloads/workload.hpp"

#include <ostream>

namespace echo::report {

inline constexpr std::size_t kMaxBars = 512;
inline constexpr std::uint32_t kTimelineRanks = 16;
inline constexpr std::size_t kMaxTimelineItems = 200000;

void write_html_report(std::ostream& out, const core::SimulationResult& result, const workloads::Workload& workload);

} // namespace echo::report
