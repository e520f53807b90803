#pragma once
// k-fold cross-validation of the XGBoost slowdown model: each kernel's slowdown is predicted by
// a model trained without its fold, so the scores say how the model does on kernels it has not
// seen. Folds are row index modulo k, in table order or in an order shuffled by a seed: the same
// table and seed give the same report. On a few hundred kernels the folds' luck moves the scores
// by several points; shuffled repeats show by how much.
#include "slowdown/evaluation.hpp"
#include "slowdown/xgboost_model.hpp"

#include <cstdint>

namespace echo::slowdown {

// Out-of-fold predicted slowdown per row (0 for rows that did not overlap). shuffle_seed 0 keeps
// the table's order.
std::vector<double> out_of_fold_slowdowns(const std::vector<KernelRow>& rows, const TrainParams& params, int folds,
                                          std::uint64_t shuffle_seed = 0);

} // namespace echo::slowdown
