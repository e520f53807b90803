#include "slowdown/evaluation.hpp"

#include <cmath>

namespace echo::slowdown {

Scores score(const std::vector<KernelRow>& rows, const std::function<double(std::size_t)>& slowdown_of) {
  Scores s;
  double predicted = 0, measured = 0;
  std::size_t w5 = 0, w10 = 0, w15 = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const KernelRow& r = rows[i];
    if (r.overlap_ratio <= 0)
      continue;
    const double p = predicted_ns(r, slowdown_of(i));
    const double err = std::abs(p - r.measured_ns) / r.measured_ns;
    w5 += err <= 0.05;
    w10 += err <= 0.10;
    w15 += err <= 0.15;
    predicted += p;
    measured += r.measured_ns;
    ++s.kernels;
  }
  if (s.kernels > 0) {
    const double n = static_cast<double>(s.kernels);
    s.within_5 = static_cast<double>(w5) / n;
    s.within_10 = static_cast<double>(w10) / n;
    s.within_15 = static_cast<double>(w15) / n;
    s.summed_error = (predicted - measured) / measured;
  }
  return s;
}

} // namespace echo::slowdown
