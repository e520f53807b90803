#pragma once
// Predictor: how much a compute kernel slows down while a communication kernel runs on the same
// GPU (the NCCL kernel takes SMs and memory bandwidth). The slowdown s means the kernel
// progresses at rate 1 / (1 + s) while it overlaps communication, so a kernel that overlaps for a
// fraction r of its isolated time T0 takes (1 - r) T0 + r T0 (1 + s).
//
// Models, as a job chooses them (`slowdown: {model: ...}`):
//   none      s = 0
//   constant  one factor for every kernel
//   category  a factor per kernel category (gemm, attention, normalization, elementwise,
//             reduction, optimizer, memcpy, other), defaults in category_defaults()
//   xgboost   a model of the kernel's Nsight Compute metrics (xgboost_model.hpp); a kernel
//             without metrics (a generated workload's, a trace's without `import ncu`) gets its
//             category's default instead: the model has never seen a kernel without them, and
//             would answer from whichever branch it happened to send missing values down.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace echo::slowdown {

// What a predictor may know of a kernel.
struct Kernel {
  std::string_view category;  // "gemm", ... as trace categories are named in lower case
  double duration_s = 0.0;    // isolated
  std::vector<float> features;  // in feature_names() order (NaN where unknown); empty: none known
  std::vector<float> collective;  // the overlapping collective, collective_feature_names() order; empty: unknown
};

class Predictor {
public:
  virtual ~Predictor() = default;
  virtual std::string name() const = 0;
  virtual double slowdown(const Kernel& kernel) const = 0;
  // Many kernels at once (one call into a model per program, not per kernel).
  virtual std::vector<double> slowdowns(const std::vector<Kernel>& kernels) const {
    std::vector<double> out;
    out.reserve(kernels.size());
    for (const Kernel& k : kernels)
      out.push_back(slowdown(k));
    return out;
  }
  // True when every kernel's slowdown is zero: the engine can skip tracking overlap.
  virtual bool is_none() const { return false; }
  // True when a kernel without metrics (Kernel::features empty) gets a stand-in answer: the engine
  // counts those kernels for the summary.
  virtual bool needs_metrics() const { return false; }
  // True when the slowdown depends on which collective runs beside the kernel (Kernel::collective):
  // the engine then asks again whenever that changes.
  virtual bool sees_collective() const { return false; }
};

std::unique_ptr<Predictor> make_none();
std::unique_ptr<Predictor> make_constant(double s);
// `overrides` replaces defaults category by category.
std::unique_ptr<Predictor> make_category(const std::map<std::string, double>& overrides);
// An XGBoost model file (xgboost_model.hpp); UserError when it cannot be used.
std::unique_ptr<Predictor> make_xgboost(const std::string& path);

// The per-category slowdowns the `category` model starts from: the median measured slowdown of
// the overlapped kernels of each category in ../shared/data/slowdown/a100-overlap-train.csv
// (GPT-2 DDP on A100, NCCL AllReduce beside; kernels assigned to categories by name). Categories
// without measured kernels there (attention, optimizer) take the median of all overlapped kernels.
const std::map<std::string, double>& category_defaults();
const std::vector<std::string>& category_names();

} // namespace echo::slowdown
