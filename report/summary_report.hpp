#pragma once
// The summary of a run in the two forms users read: a fixed-format text table and JSON.
// Both are byte-identical for identical inputs, except the wall-clock figures, which only the
// JSON printed with `--json` carries (summary.json leaves them out so runs can be diffed).
#include "core/simulation_result.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace echo::report {

nlohmann::ordered_json summary_json(const core::SimulationResult& result, bool with_wall_clock);
std::string text_summary(const core::SimulationResult& result);
// One line for stderr: events, wall time, events per second, peak memory.
std::string simulation_stats_line(const core::SimulationResult& result);

} // namespace echo::report
