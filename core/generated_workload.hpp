#pragma once
// A workload generated from a model config on a loaded platform: the platform's GPU model picks
// the compute model's GPU preset, its GPU count bounds the layout, and every rank's memory must fit.
#include "platforms/cluster.hpp"
#include "workloads/generator/training_job.hpp"
#include "workloads/workload.hpp"

#include <string>

namespace echo::core {

// `slowdown_model` says which kernels slow down alike under overlap, so may be merged.
workloads::Workload generated_workload(workloads::TrainingJob job, const platforms::Cluster& cluster,
                                       const std::string& platform_name, const std::string& slowdown_model);

} // namespace echo::core
