#pragma once
// The training figures of a generated workload: throughput (tokens/s), model TFLOP/s per GPU and
// MFU, peak memory, and the iteration's breakdown — compute, overlap slowdown, exposed
// communication per parallel dimension, pipeline bubble — as means over ranks.
#include "core/simulation_result.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace echo::report {

struct TrainingFigures {
  double tokens_per_s = 0, tflops_per_gpu = 0, mfu = 0;
  double peak_memory_bytes = 0, memory_capacity_bytes = 0;
  std::uint32_t peak_memory_rank = 0;
  workloads::MemoryBreakdown peak_memory;
  // Kernel seconds at full speed by what they do, mean per rank, largest first.
  std::vector<std::pair<std::string, double>> gpu_seconds_by_kind;
};

struct IterationBreakdown {
  double compute_s = 0, overlap_slowdown_s = 0, bubble_s = 0, idle_s = 0;
  std::vector<std::pair<std::string, double>> exposed_comm_s;  // by communicator slot, in slot order
};

std::optional<TrainingFigures> training_figures(const core::SimulationResult& r);
// `bubble_s` is the idle time when the job is pipelined (a stage waiting for its neighbours), 0
// otherwise; `idle_s` the rest.
IterationBreakdown iteration_breakdown(const core::SimulationResult& r);

nlohmann::ordered_json training_json(const TrainingFigures& f);
nlohmann::ordered_json breakdown_json(const IterationBreakdown& b);
// Lines for the text summary ("throughput: ...", "memory: ...", "GPU work: ...", "breakdown: ...").
std::string training_text(const core::SimulationResult& r);

} // namespace echo::report
