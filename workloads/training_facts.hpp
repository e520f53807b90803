#pragma once
// TrainingFacts: what a generated workload knows beyond its tasks — the model arithmetic and the
// memory each rank needs — so the summary can give tokens/s, TFLOP/s, MFU and peak memory.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace echo::workloads {

struct MemoryBreakdown {
  double weights = 0, gradients = 0, optimizer = 0, activations = 0, buffers = 0;  // bytes
  double total() const { return weights + gradients + optimizer + activations + buffers; }
};

struct TrainingFacts {
  std::string model;
  std::string gpu;
  double tokens_per_iteration = 0;
  // Model FLOPs of one iteration (Megatron-LM's count: every matmul, forward and backward, with
  // no recomputation), the numerator of TFLOP/s per GPU and MFU.
  double model_flops_per_iteration = 0;
  double peak_flops_per_gpu = 0;     // dense tensor-core peak for the training dtype
  double memory_capacity_bytes = 0;  // per GPU
  std::uint32_t tp = 1, pp = 1, dp = 1, cp = 1, ep = 1;
  std::uint32_t micro_batches = 1;
  std::vector<MemoryBreakdown> memory_by_program;  // index: Workload::programs
  // Per program: its kernels' seconds at full speed by what they do ("gemm", "attention",
  // "fp8_cast", ...), one iteration's worth.
  std::vector<std::map<std::string, double>> gpu_seconds_by_kind;
  // The job's settings with every default explicit, as the job file spells them (resolved_settings.hpp).
  std::vector<std::pair<std::string, std::string>> settings;
};

} // namespace echo::workloads
