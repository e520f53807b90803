#include "slowdown/predictor.hpp"

#include "slowdown/features.hpp"
#include "slowdown/xgboost_model.hpp"

#include <cmath>
#include <vector>

namespace echo::slowdown {

namespace {

class NoSlowdown final : public Predictor {
public:
  std::string name() const override { return "none"; }
  double slowdown(const Kernel&) const override { return 0.0; }
  bool is_none() const override { return true; }
};

class ConstantSlowdown final : public Predictor {
public:
  explicit ConstantSlowdown(double s) : s_(s) {}
  std::string name() const override { return "constant"; }
  double slowdown(const Kernel&) const override { return s_; }
  bool is_none() const override { return s_ == 0.0; }

private:
  double s_;
};

class CategorySlowdown final : public Predictor {
public:
  explicit CategorySlowdown(std::map<std::string, double, std::less<>> table) : table_(std::move(table)) {}
  std::string name() const override { return "category"; }
  double slowdown(const Kernel& k) const override {
    auto it = table_.find(k.category);
    return it != table_.end() ? it->second : table_.at("other");
  }

private:
  std::map<std::string, double, std::less<>> table_;
};

} // namespace

const std::vector<std::string>& category_names() {
  static const std::vector<std::string> names = {"gemm",      "attention", "normalization", "elementwise",
                                                 "reduction", "optimizer", "memcpy",        "other"};
  return names;
}

const std::map<std::string, double>& category_defaults() {
  // Medians of the measured `slowdown` column over overlapped kernels (overlap_ratio > 0):
  // gemm 25 kernels, elementwise 129, normalization 9, reduction 12, memcpy 5 (its median is
  // slightly negative: taken as 0), other 19; all 199 kernels: 0.020.
  static const std::map<std::string, double> table = {
      {"gemm", 0.012},      {"attention", 0.020}, {"normalization", 0.107}, {"elementwise", 0.009},
      {"reduction", 0.043}, {"optimizer", 0.020}, {"memcpy", 0.0},          {"other", 0.034}};
  return table;
}

class XGBoostSlowdown final : public Predictor {
public:
  explicit XGBoostSlowdown(XGBoostModel model) : model_(std::move(model)), without_metrics_(category_defaults_predictor()) {}
  std::string name() const override { return "xgboost"; }
  double slowdown(const Kernel& k) const override { return slowdowns({k}).front(); }
  bool needs_metrics() const override { return true; }
  bool sees_collective() const override { return model_.with_collective(); }
  std::vector<double> slowdowns(const std::vector<Kernel>& kernels) const override {
    std::vector<std::vector<float>> rows;
    std::vector<std::size_t> modelled;
    std::vector<double> out(kernels.size(), 0.0);
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      const Kernel& k = kernels[i];
      if (k.features.empty()) {
        out[i] = without_metrics_.slowdown(k);
        continue;
      }
      std::vector<float> f = k.features;
      f[0] = static_cast<float>(k.duration_s * 1e9);  // ground_truth: the isolated duration in ns
      if (model_.with_collective()) {
        if (k.collective.size() == collective_feature_names().size())
          f.insert(f.end(), k.collective.begin(), k.collective.end());
        else
          f.insert(f.end(), collective_feature_names().size(), std::nanf(""));
      }
      rows.push_back(std::move(f));
      modelled.push_back(i);
    }
    const std::vector<double> predicted = model_.predict(rows);
    for (std::size_t j = 0; j < modelled.size(); ++j)
      out[modelled[j]] = predicted[j];
    return out;
  }

private:
  static CategorySlowdown category_defaults_predictor() {
    return CategorySlowdown({category_defaults().begin(), category_defaults().end()});
  }
  XGBoostModel model_;
  CategorySlowdown without_metrics_;
};

std::unique_ptr<Predictor> make_none() { return std::make_unique<NoSlowdown>(); }
std::unique_ptr<Predictor> make_xgboost(const std::string& path) {
  return std::make_unique<XGBoostSlowdown>(XGBoostModel::load(path));
}
std::unique_ptr<Predictor> make_constant(double s) { return std::make_unique<ConstantSlowdown>(s); }

std::unique_ptr<Predictor> make_category(const std::map<std::string, double>& overrides) {
  std::map<std::string, double, std::less<>> table(category_defaults().begin(), category_defaults().end());
  for (const auto& [k, v] : overrides)
    table[k] = v;
  return std::make_unique<CategorySlowdown>(std::move(table));
}

} // namespace echo::slowdown
