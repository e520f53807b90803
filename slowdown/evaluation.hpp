#pragma once
// How well predicted slowdowns explain measured overlapped durations, over the kernels that
// overlapped communication (overlap_ratio > 0): the share of kernels whose predicted duration is
// within 5, 10 and 15% of the measured one, and the signed error of the summed duration.
#include "slowdown/kernel_table.hpp"

#include <functional>
#include <string>
#include <vector>

namespace echo::slowdown {

struct Scores {
  double within_5 = 0, within_10 = 0, within_15 = 0;
  double summed_error = 0;  // (sum predicted - sum measured) / sum measured
  std::size_t kernels = 0;
};

// `slowdown_of(i)` is the predicted slowdown of rows[i].
Scores score(const std::vector<KernelRow>& rows, const std::function<double(std::size_t)>& slowdown_of);

// Scores of the kernels of one name, and what they add to the error of the summed duration of
// all the overlapped kernels: (their predicted - their measured) / everyone's measured.
struct NamedScores {
  std::string name;
  Scores scores;
  double error_of_total = 0;
};
// One entry per kernel name among the overlapped kernels, the largest |error_of_total| first
// (ties by name): where a summed error comes from.
std::vector<NamedScores> score_by_name(const std::vector<KernelRow>& rows, const std::function<double(std::size_t)>& slowdown_of);

} // namespace echo::slowdown
