#include "slowdown/cross_validation.hpp"

#include "base/user_error.hpp"

#include <numeric>
#include <random>
#include <utility>

namespace echo::slowdown {

std::vector<double> out_of_fold_slowdowns(const std::vector<KernelRow>& rows, const TrainParams& params, int folds,
                                          std::uint64_t shuffle_seed) {
  if (folds < 2)
    throw UserError("", 0, "cross-validation needs at least 2 folds, got " + std::to_string(folds), "use e.g. --folds 5");
  std::vector<double> predicted(rows.size(), 0.0);
  // fold_of[i]: position i of the (shuffled) order, modulo folds. A hand-rolled Fisher-Yates over
  // std::mt19937_64: std::shuffle's result differs between standard libraries.
  std::vector<std::size_t> order(rows.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (shuffle_seed != 0) {
    std::mt19937_64 random(shuffle_seed);
    for (std::size_t i = order.size(); i > 1; --i)
      std::swap(order[i - 1], order[random() % i]);
  }
  std::vector<int> fold_of(rows.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    fold_of[order[k]] = static_cast<int>(k % static_cast<std::size_t>(folds));
  for (int f = 0; f < folds; ++f) {
    std::vector<KernelRow> train;
    std::vector<std::size_t> held;
    for (std::size_t i = 0; i < rows.size(); ++i)
      (fold_of[i] == f ? held.push_back(i), void() : train.push_back(rows[i]));
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
