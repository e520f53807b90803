#pragma once
// What the slowdown predictors get to know of a traced compute kernel: its category, isolated
// duration and, when the trace has them, its Nsight Compute metrics in the order of
// slowdown::feature_names() (the SM count is not in traces: unknown).
#include "slowdown/predictor.hpp"
#include "workloads/rank_program.hpp"

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace echo::core {

slowdown::Kernel kernel_of(const workloads::RankProgram& program, const workloads::ProgramTask& task);

// The predicted slowdown of every task of every program (0 for communication), computed once
// per program before the run.
std::vector<std::vector<double>> slowdowns_by_task(const std::vector<workloads::RankProgram>& programs,
                                                   const slowdown::Predictor& predictor);

// Compute kernels of the programs without Nsight Compute metrics, and all compute kernels.
struct MetricsCoverage {
  std::uint64_t without = 0, kernels = 0;
};
MetricsCoverage metrics_coverage(const std::vector<workloads::RankProgram>& programs);

// For predictors that look at the collective beside a kernel (Predictor::sees_collective): the
// slowdown of a task next to a kind of call, asked of the model once per (program, task, kind)
// — a kind being the call matcher's feature vector, named by its address.
class SlowdownByCollective {
public:
  SlowdownByCollective(const std::vector<workloads::RankProgram>& programs, const slowdown::Predictor& predictor)
      : programs_(programs), predictor_(predictor) {}
  double of(std::uint32_t program, std::uint32_t task, const std::vector<float>& collective);

private:
  const std::vector<workloads::RankProgram>& programs_;
  const slowdown::Predictor& predictor_;
  std::map<std::tuple<std::uint32_t, std::uint32_t, const std::vector<float>*>, double> cache_;
};

} // namespace echo::core
