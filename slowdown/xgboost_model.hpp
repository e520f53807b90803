#pragma once
// XGBoostModel: a gradient-boosted-trees slowdown predictor (Debian's libxgboost, C API). It
// learns a kernel's slowdown s from its features (features.hpp) over the kernels that overlapped
// communication, and is kept as XGBoost JSON, feature names included, so that models trained by
// other tools on the same column names load too (a model with other names is refused). Rows carry
// feature_names() or, when the table had the collective's columns, extended_feature_names().
#include "slowdown/kernel_table.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace echo::slowdown {

// What the fit is for. On kernels whose features cannot tell a slowed instance from an
// unslowed one (the same kernel beside a busy or an idle collective), the two disagree: the
// typical kernel's duration wants the common value, the summed duration wants the mean.
enum class Objective {
  // Each kernel's duration: fits each kernel's typical slowdown, the common outcome among its
  // look-alikes (typical_slowdown.hpp). Best share of kernels within 5/10/15%.
  kernels,
  // The summed duration: fits the measured slowdowns, weighted by the overlapped time r T0, so
  // that within every leaf the predicted and measured durations add up to the same total. What
  // an iteration-time prediction needs; poorer per kernel.
  total,
};

// Defaults chosen by 5-fold cross-validation on ../shared/data/slowdown (see README). The
// `kernels` labels are piecewise constant over kinds of kernels, so deep trees fit them without
// fitting noise; the results move little with these settings.
struct TrainParams {
  int rounds = 200;        // boosting rounds
  int max_depth = 6;
  double eta = 0.1;        // learning rate
  double subsample = 0.8;
  double min_child_weight = 0.5;
  std::uint64_t seed = 7;
  Objective objective = Objective::kernels;
};

// XGBoost writes its own warnings to stderr; a program that reports errors in its own words calls
// this once at start (echo-des's main does).
void silence_xgboost_logging();

class XGBoostModel {
public:
  // Trains on the rows that overlapped communication and whose measurement is possible (see
  // impossible_measurement). Single-threaded and seeded: the same rows give the same model.
  static XGBoostModel train(const std::vector<KernelRow>& rows, const TrainParams& params);
  // Throws UserError when the file is not an XGBoost JSON model or has other feature names.
  static XGBoostModel load(const std::string& path);
  void save(const std::string& path) const;

  // Predicted slowdown per row (features only are read).
  std::vector<double> predict(const std::vector<std::vector<float>>& features) const;
  // Trained with the overlapping collective's features too (extended_feature_names()).
  bool with_collective() const { return with_collective_; }

  XGBoostModel(XGBoostModel&&) noexcept;
  XGBoostModel& operator=(XGBoostModel&&) noexcept;
  XGBoostModel(const XGBoostModel&) = delete;
  ~XGBoostModel();

private:
  XGBoostModel() = default;
  void* booster_ = nullptr;
  bool with_collective_ = false;
};

} // namespace echo::slowdown
