#pragma once
// Each task's kernel time in us, by name, in the first template of a generated job checked for
// `gpus` H100s, kernels unmerged (communication tasks appear with 0).
#include "workloads/generator/compute_model.hpp"
#include "workloads/generator/transformer_generator.hpp"

#include <cstdint>
#include <map>
#include <string>

namespace echo::test {

inline std::map<std::string, double> kernel_us(workloads::TrainingJob job, std::uint32_t gpus) {
  job.merge_kernels = false;
  workloads::check_training_job(job, gpus, *workloads::gpu_preset("h100"));
  const workloads::GeneratedJob g =
      workloads::generate_training_job(job, workloads::ComputeModel(*workloads::gpu_preset("h100"), workloads::DataType::bf16));
  std::map<std::string, double> us;
  for (const auto& t : g.trace.templates(0).tasks())
    us.emplace(t.name(), t.compute().duration_ns() / 1e3);
  return us;
}

} // namespace echo::test
