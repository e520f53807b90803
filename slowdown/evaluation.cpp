#include "slowdown/evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <map>

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

std::vector<NamedScores> score_by_name(const std::vector<KernelRow>& rows, const std::function<double(std::size_t)>& slowdown_of) {
  std::map<std::string, std::vector<std::size_t>> by_name;
  double measured_total = 0;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].overlap_ratio > 0) {
      by_name[rows[i].name].push_back(i);
      measured_total += rows[i].measured_ns;
    }
  std::vector<NamedScores> out;
  for (const auto& [name, members] : by_name) {
    std::vector<KernelRow> group;
    double error_ns = 0;
    for (std::size_t i : members) {
      group.push_back(rows[i]);
      error_ns += predicted_ns(rows[i], slowdown_of(i)) - rows[i].measured_ns;
    }
    const std::vector<std::size_t>& of_group = members;  // clang before 16 cannot capture a structured binding
    out.push_back({name, score(group, [&](std::size_t k) { return slowdown_of(of_group[k]); }), error_ns / measured_total});
  }
  std::sort(out.begin(), out.end(), [](const NamedScores& a, const NamedScores& b) {
    return std::abs(a.error_of_total) != std::abs(b.error_of_total) ? std::abs(a.error_of_total) > std::abs(b.error_of_total)
                                                                    : a.name < b.name;
  });
  return out;
}

} // namespace echo::slowdown
