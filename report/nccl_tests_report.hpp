#pragma once
// Prints a simulated sweep exactly as nccl-tests' *_perf binaries print theirs (columns, widths
// and number formats of nccl-tests 2.13+), so a simulated table can be diffed line by line with a
// real log. Header lines start with '#', as in nccl-tests, and also say what was simulated.
#include "core/collective_benchmark.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace echo::report {

std::string nccl_tests_table(const core::BenchmarkSpec& spec, const std::vector<core::BenchmarkRow>& rows,
                             const std::string& platform_description);

// The same sweep as JSON: the op, platform, choices and one row per size with its time, algbw,
// busbw and the algorithm/protocol/channels NCCL would run.
nlohmann::ordered_json nccl_tests_json(const core::BenchmarkSpec& spec, const std::vector<core::BenchmarkRow>& rows,
                                       const std::string& platform_description);

// nccl-tests' number format: the widest of %.2f, %.1f, %.0f that fits `width`, else exponent.
std::string nccl_float(double value, int width);

} // namespace echo::report
