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
};

class Predictor {
public:
  virtual ~Predictor() = default;
  virtual std::string name() const = 0;
  virtual double slowdown(const Kernel& kernel) const = 0;
  // True when every kernel's slowdown is zero: the engine can skip tracking overlap.
  virtual bool is_none() const { return false; }
};

std::unique_ptr<Predictor> make_none();
std::unique_ptr<Predictor> make_constant(double s);
// `overrides` replaces defaults category by category.
std::unique_ptr<Predictor> make_category(const std::map<std::string, double>& overrides);

// The per-category slowdowns the `category` model starts from: the median measured slowdown of
// the overlapped kernels of each category in ../shared/data/slowdown/a100-overlap-train.csv
// (GPT-2 DDP on A100, NCCL AllReduce beside; kernels assigned to categories by name). Categories
// without measured kernels there (attention, optimizer) take the median of all overlapped kernels.
const std::map<std::string, double>& category_defaults();
const std::vector<std::string>& category_names();

} // namespace echo::slowdown
