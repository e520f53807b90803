#pragma once
// A workload generated from a model config on a loaded platform: the platform's GPU model picks
// the compute model's GPU preset, its GPU count bounds the layout, and every rank's memory must fit.
#include "base/user_error.hpp"
#include "platforms/cluster.hpp"
#include "workloads/generator/training_job.hpp"
#include "workloads/workload.hpp"

#include <string>

namespace echo::core {

// A rank of a generated job needs more memory than its GPU has (a UserError a sweep tells apart).
class DoesNotFit : public UserError {
public:
  using UserError::UserError;
};

// `slowdown_model` says which kernels slow down alike under overlap, so may be merged.
workloads::Workload generated_workload(workloads::TrainingJob job, const platforms::Cluster& cluster,
                                       const std::string& slowdown_model);

} // namespace echo::core
