#pragma once
// A workload generated from a model config on a loaded platform: the platform's GPU model picks
// the compute model's GPU preset, its GPU count bounds the layout, and every rank's memory must fit.
#include "base/user_error.hpp"
#include "platforms/cluster.hpp"
#include "platforms/cluster_spec.hpp"
#include "workloads/generator/training_job.hpp"
#include "workloads/workload.hpp"

#include <cstdint>
#include <string>

namespace echo::core {

// A rank of a generated job needs more memory than its GPU has (a UserError a sweep tells apart).
class DoesNotFit : public UserError {
public:
  using UserError::UserError;
};

// What a generated workload needs of its platform: the GPUs' model and how many there are. A
// preset says both without SimGrid (so the workload can be generated while SimGrid builds the
// platform); a platform file says them once loaded.
struct GpusOfPlatform {
  std::string model;
  std::uint32_t count = 0;
};
GpusOfPlatform gpus_of(const platforms::Cluster& cluster);
GpusOfPlatform gpus_of(const platforms::ClusterSpec& spec);

// `slowdown_model` says which kernels slow down alike under overlap, so may be merged.
workloads::Workload generated_workload(workloads::TrainingJob job, const GpusOfPlatform& gpus,
                                       const std::string& slowdown_model);

} // namespace echo::core
