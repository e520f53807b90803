#pragma once
// Comparing two runs: the what-if view. Reads two summaries (summary.json files, or --out folders
// holding one) and sets them side by side: iteration time, the mean per-rank breakdown, and the
// collectives whose time changed most, each with its relative change.
#include <nlohmann/json.hpp>

#include <string>

namespace echo::report {

// Reads `path` (a summary.json, or a folder with one). Throws UserError when it is missing, is
// not JSON, or is not an echo-des summary.
nlohmann::json read_summary(const std::string& path);

// The comparison as JSON: the settings that differ, iteration time, the training figures, the
// mean breakdown and the collectives that changed most, each as {a, b, change} (change: b / a - 1,
// null when a is zero), with a note where a section exists on one side only.
nlohmann::json compare_json(const nlohmann::json& a, const std::string& a_name, const nlohmann::json& b, const std::string& b_name,
                            std::size_t max_collectives = 10);

// The same as text: the side-by-side report; `max_collectives` rows of collective differences at most. Summaries of
// different workloads are compared on what both have, and the report says so.
std::string compare_summaries(const nlohmann::json& a, const std::string& a_name, const nlohmann::json& b,
                              const std::string& b_name, std::size_t max_collectives = 10);

} // namespace echo::report
