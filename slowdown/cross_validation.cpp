#include "slowdown/cross_validation.hpp"

#include "base/user_error.hpp"

namespace echo::slowdown {

std::vector<double> out_of_fold_slowdowns(const std::vector<KernelRow>& rows, const TrainParams& params, int folds) {
  if (folds < 2)
    throw UserError("", 0, "cross-validation needs at least 2 folds, got " + std::to_string(folds), "use e.g. --folds 5");
  std::vector<double> predicted(rows.size(), 0.0);
  for (int f = 0; f < folds; ++f) {
    std::vector<KernelRow> train;
    std::vector<std::size_t> held;
    for (std::size_t i = 0; i < rows.size(); ++i)
      (static_cast<int>(i % static_cast<std::size_t>(folds)) == f ? held.push_back(i), void() : train.push_back(rows[i]));
    if (held.empty())
      continue;
    const XGBoostModel model = XGBoostModel::train(train, params);
    std::vector<std::vector<float>> features;
    for (std::size_t i : held)
      features.push_back(rows[i].features);
    const std::vector<double> s = model.predict(features);
    for (std::size_t k = 0; k < held.size(); ++k)
      predicted[held[k]] = rows[held[k]].overlap_ratio > 0 ? s[k] : 0.0;
  }
  return predicted;
}

} // namespace echo::slowdown
