#pragma once
// What the slowdown predictors get to know of a traced compute kernel: its category, isolated
// duration and, when the trace has them, its Nsight Compute metrics in the order of
// slowdown::feature_names() (the SM count is not in traces: unknown).
#include "slowdown/predictor.hpp"
#include "workloads/rank_program.hpp"

#include <vector>

namespace echo::core {

slowdown::Kernel kernel_of(const workloads::RankProgram& program, const workloads::ProgramTask& task);

// The predicted slowdown of every task of every program (0 for communication), computed once
// per program before the run.
std::vector<std::vector<double>> slowdowns_by_task(const std::vector<workloads::RankProgram>& programs,
                                                   const slowdown::Predictor& predictor);

} // namespace echo::core
