#include "slowdown/xgboost_model.hpp"

#include "base/user_error.hpp"
#include "slowdown/features.hpp"
#include "slowdown/typical_slowdown.hpp"

#include <xgboost/c_api.h>

#include <algorithm>
#include "slowdown/model_check.hpp"

#include <cmath>
#include <fstream>
#include <stdexcept>
#include <utility>

namespace echo::slowdown {

namespace {

// XGBoost's last error in one line: its first line, without the "[time] file:line: " prefix and
// without the stack trace that follows.
std::string last_error() {
  std::string e = XGBGetLastError();
  e = e.substr(0, e.find('\n'));
  if (e.rfind('[', 0) == 0) {
    const auto close = e.find("] ");
    if (close != std::string::npos)
      e = e.substr(close + 2);
    const auto source = e.find(": ");
    if (source != std::string::npos && e.substr(0, source).find(".cc:") != std::string::npos)
      e = e.substr(source + 2);
  }
  return e;
}

void check(int code, const char* what) {
  if (code != 0)
    throw std::runtime_error(std::string("xgboost: ") + what + ": " + last_error());
}

const std::vector<std::string>& names_for(bool with_collective) {
  return with_collective ? extended_feature_names() : feature_names();
}

// A DMatrix over rows of features, with their feature names.
struct Matrix {
  DMatrixHandle h = nullptr;
  Matrix(const std::vector<std::vector<float>>& rows, bool with_collective) {
    const auto& columns = names_for(with_collective);
    const std::size_t cols = columns.size();
    std::vector<float> flat;
    flat.reserve(rows.size() * cols);
    for (const auto& r : rows) {
      if (r.size() != cols)
        throw std::logic_error("xgboost: a row of " + std::to_string(r.size()) + " features for a model of " + std::to_string(cols));
      flat.insert(flat.end(), r.begin(), r.end());
    }
    check(XGDMatrixCreateFromMat(flat.data(), rows.size(), cols, std::nanf(""), &h), "matrix");
    std::vector<const char*> names;
    for (const auto& n : columns)
      names.push_back(n.c_str());
    check(XGDMatrixSetStrFeatureInfo(h, "feature_name", names.data(), names.size()), "feature names");
  }
  ~Matrix() { XGDMatrixFree(h); }
  Matrix(const Matrix&) = delete;
};

} // namespace

void silence_xgboost_logging() {
  XGBRegisterLogCallback([](const char*) {});
}

XGBoostModel::XGBoostModel(XGBoostModel&& o) noexcept
    : booster_(std::exchange(o.booster_, nullptr)), with_collective_(o.with_collective_) {}
XGBoostModel& XGBoostModel::operator=(XGBoostModel&& o) noexcept {
  std::swap(booster_, o.booster_);
  std::swap(with_collective_, o.with_collective_);
  return *this;
}
XGBoostModel::~XGBoostModel() {
  if (booster_ != nullptr)
    XGBoosterFree(booster_);
}

XGBoostModel XGBoostModel::train(const std::vector<KernelRow>& rows, const TrainParams& p) {
  // Squared error either way; what differs is what is fitted.
  // - kernels: each kernel's typical slowdown (typical_slowdown.hpp), weight 1: every kernel
  //   counts once, as in the share of kernels within 10%.
  // - total: the measured slowdown, weighted by the overlapped time r T0 (a kernel's duration
  //   errs by (s - s_measured) r T0), so that each leaf's value is the duration-weighted mean of
  //   its kernels' s: predicted and measured durations add up alike. Scaled to average 1, so that
  //   min_child_weight counts kernels.
  std::vector<KernelRow> kept;
  for (const KernelRow& r : rows)
    if (r.overlap_ratio > 0 && !impossible_measurement(r))
      kept.push_back(r);
  std::vector<std::vector<float>> features;
  std::vector<float> labels, weights;
  const std::vector<double> typical = p.objective == Objective::kernels ? typical_slowdowns(kept) : std::vector<double>{};
  double weight_sum = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const KernelRow& r = kept[i];
    features.push_back(r.features);
    labels.push_back(static_cast<float>(p.objective == Objective::kernels ? typical[i] : measured_slowdown(r)));
    weights.push_back(static_cast<float>(p.objective == Objective::kernels ? 1.0 : r.overlap_ratio * r.isolated_ns));
    weight_sum += weights.back();
  }
  for (float& w : weights)
    w = static_cast<float>(w * static_cast<double>(weights.size()) / weight_sum);
  if (features.empty()) {
    const bool overlapped = std::any_of(rows.begin(), rows.end(), [](const KernelRow& r) { return r.overlap_ratio > 0; });
    if (overlapped)
      throw UserError("", 0, "every kernel that overlapped communication was measured shorter than its non-overlapped part alone",
                      "check that `ground_truth` and `duration` come from the same kernel launch, in ns");
    throw UserError("", 0, "no kernel in the tables overlapped communication (overlap_ratio > 0)",
                    "train on measurements of kernels that ran beside NCCL kernels");
  }
  const bool with_collective = features.front().size() == extended_feature_names().size();
  for (const auto& f : features)
    if ((f.size() == extended_feature_names().size()) != with_collective)
      throw UserError("", 0, "some tables have the overlapping collective's columns and some do not",
                      "train on tables that all have, or all lack, the columns comm_op ... comm_bytes");
  Matrix m(features, with_collective);
  check(XGDMatrixSetFloatInfo(m.h, "label", labels.data(), labels.size()), "labels");
  check(XGDMatrixSetFloatInfo(m.h, "weight", weights.data(), weights.size()), "weights");
  XGBoostModel model;
  model.with_collective_ = with_collective;
  check(XGBoosterCreate(&m.h, 1, &model.booster_), "booster");
  auto set = [&](const char* k, const std::string& v) { check(XGBoosterSetParam(model.booster_, k, v.c_str()), k); };
  set("objective", "reg:squarederror");
  set("base_score", "0");  // start from "no slowdown", not XGBoost's 0.5
  set("max_depth", std::to_string(p.max_depth));
  set("eta", std::to_string(p.eta));
  set("subsample", std::to_string(p.subsample));
  set("min_child_weight", std::to_string(p.min_child_weight));
  set("seed", std::to_string(p.seed));
  set("nthread", "1");
  set("verbosity", "0");
  std::vector<const char*> names;
  for (const auto& n : names_for(with_collective))
    names.push_back(n.c_str());
  check(XGBoosterSetStrFeatureInfo(model.booster_, "feature_name", names.data(), names.size()), "feature names");
  for (int i = 0; i < p.rounds; ++i)
    check(XGBoosterUpdateOneIter(model.booster_, i, m.h), "training");
  return model;
}

XGBoostModel XGBoostModel::load(const std::string& path) {
  std::ifstream probe(path);
  if (!probe)
    throw UserError(path, 0, "cannot read the model", "give a model.json written by `echo-des slowdown train`");
  check_model_structure(path);  // libxgboost trusts the file's indices and crashes on bad ones
  XGBoostModel model;
  check(XGBoosterCreate(nullptr, 0, &model.booster_), "booster");
  if (XGBoosterLoadModel(model.booster_, path.c_str()) != 0)
    throw UserError(path, 0, "not an XGBoost model: " + last_error(),
                    "give an XGBoost JSON model (`echo-des slowdown train -o model.json`)");
  bst_ulong n = 0;
  const char** names = nullptr;
  check(XGBoosterGetStrFeatureInfo(model.booster_, "feature_name", &n, &names), "feature names");
  std::vector<std::string> have(names, names + n);
  model.with_collective_ = have == extended_feature_names();
  if (have != feature_names() && !model.with_collective_) {
    std::string list;
    for (const auto& h : have)
      list += (list.empty() ? "" : ", ") + h;
    std::string want;
    for (const auto& f : feature_names())
      want += (want.empty() ? "" : ", ") + f;
    throw UserError(path, 0, "the model's features are [" + list + "], not echo-des's",
                    "train it on the columns " + want + " (in that order), optionally followed by comm_op, "
                    "comm_algorithm, comm_protocol, comm_channels, comm_bytes");
  }
  return model;
}

void XGBoostModel::save(const std::string& path) const {
  check(XGBoosterSaveModel(booster_, path.c_str()), "saving the model");
}

std::vector<double> XGBoostModel::predict(const std::vector<std::vector<float>>& features) const {
  if (features.empty())
    return {};
  Matrix m(features, with_collective_);
  bst_ulong len = 0;
  const float* out = nullptr;
  check(XGBoosterPredict(booster_, m.h, 0, 0, 0, &len, &out), "prediction");
  return std::vector<double>(out, out + len);
}

} // namespace echo::slowdown
