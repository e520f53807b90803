#pragma once
// k-fold cross-validation of the XGBoost slowdown model: each kernel's slowdown is predicted by
// a model trained without its fold, so the scores say how the model does on kernels it has not
// seen. Folds are row index modulo k: the same table gives the same report.
#include "slowdown/evaluation.hpp"
#include "slowdown/xgboost_model.hpp"

namespace echo::slowdown {

// Out-of-fold predicted slowdown per row (0 for rows that did not overlap).
std::vector<double> out_of_fold_slowdowns(const std::vector<KernelRow>& rows, const TrainParams& params, int folds);

} // namespace echo::slowdown
