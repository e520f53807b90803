#pragma once
// How well predicted slowdowns explain measured overlapped durations, over the kernels that
// overlapped communication (overlap_ratio > 0): the share of kernels whose predicted duration is
// within 5, 10 and 15% of the measured one, and the signed error of the summed duration.
#include "slowdown/kernel_table.hpp"

#include <functional>
#include <vector>

namespace echo::slowdown {

struct Scores {
  double within_5 = 0, within_10 = 0, within_15 = 0;
  double summed_error = 0;  // (sum predicted - sum measured) / sum measured
  std::size_t kernels = 0;
};

// `slowdown_of(i)` is the predicted slowdown of rows[i].
Scores score(const std::vector<KernelRow>& rows, const std::function<double(std::size_t)>& slowdown_of);

} // namespace echo::slowdown
