#include "slowdown/typical_slowdown.hpp"

#include "slowdown/features.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace echo::slowdown {

namespace {

constexpr double kDurationTolerance = 0.10;  // isolated durations, and collective bytes, as a ratio
constexpr double kMetricTolerance = 5.0;     // Nsight Compute metrics, in percentage points
constexpr double kWindow = 0.10;             // "fits": predicted duration within 10% of measured

bool within_ratio(double a, double b, double tolerance) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  if (a <= 0 || b <= 0)
    return a == b;
  return std::abs(std::log(a / b)) <= std::log1p(tolerance);
}

bool same_value(float a, float b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

bool look_alike(const KernelRow& a, const KernelRow& b) {
  if (!within_ratio(a.isolated_ns, b.isolated_ns, kDurationTolerance) || a.features.size() != b.features.size())
    return false;
  const std::size_t metrics = feature_names().size();  // column 0 is the isolated duration again
  for (std::size_t c = 1; c < metrics; ++c) {
    const float x = a.features[c], y = b.features[c];
    if (!(same_value(x, y) || std::abs(x - y) <= kMetricTolerance))
      return false;
  }
  // The collective's columns: op, algorithm, protocol, channels equal; bytes (the last) close.
  for (std::size_t c = metrics; c + 1 < a.features.size(); ++c)
    if (!same_value(a.features[c], b.features[c]))
      return false;
  return a.features.size() == metrics || within_ratio(a.features.back(), b.features.back(), kDurationTolerance);
}

// The slowdowns that fit a measured kernel: predicted duration within kWindow of the measured
// one, i.e. |c - s| r T0 <= kWindow M.
struct Fit {
  double lo, hi, s, weight;
};

Fit fit_of(const KernelRow& r) {
  const double s = measured_slowdown(r), overlapped_ns = r.overlap_ratio * r.isolated_ns;
  const double half = kWindow * r.measured_ns / overlapped_ns;
  return {s - half, s + half, s, overlapped_ns};
}

// The slowdown that fits the most of `fits`, the one nearest 0 among equals, refined to the
// weighted mean of those it fits. The most fitted lie in a segment bounded by the fits' ends,
// so 0 and those ends are the only candidates.
double typical_of(const std::vector<Fit>& fits) {
  std::vector<double> los, his, candidates{0.0};
  for (const Fit& f : fits) {
    los.push_back(f.lo);
    his.push_back(f.hi);
    candidates.push_back(f.lo);
    candidates.push_back(f.hi);
  }
  std::sort(los.begin(), los.end());
  std::sort(his.begin(), his.end());
  auto fitted = [&](double c) {
    const auto started = std::upper_bound(los.begin(), los.end(), c) - los.begin();
    const auto ended = std::lower_bound(his.begin(), his.end(), c) - his.begin();
    return started - ended;
  };
  double best = 0.0;
  auto most = fitted(0.0);
  for (double c : candidates) {
    const auto n = fitted(c);
    if (n > most || (n == most && std::abs(c) < std::abs(best))) {
      most = n;
      best = c;
    }
  }
  double weight = 0, weighted = 0;
  for (const Fit& f : fits)
    if (f.lo <= best && best <= f.hi) {
      weight += f.weight;
      weighted += f.weight * f.s;
    }
  return weight > 0 ? weighted / weight : best;
}

} // namespace

std::vector<double> typical_slowdowns(const std::vector<KernelRow>& rows) {
  // Look-alikes have isolated durations within kDurationTolerance: sorted by duration, each row
  // compares only with its window of the sorted order.
  std::vector<std::size_t> by_duration;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].overlap_ratio > 0)
      by_duration.push_back(i);
  std::stable_sort(by_duration.begin(), by_duration.end(),
                   [&](std::size_t a, std::size_t b) { return rows[a].isolated_ns < rows[b].isolated_ns; });
  std::vector<double> labels(rows.size(), 0.0);
  std::vector<Fit> fits;
  std::size_t first = 0;
  for (std::size_t k = 0; k < by_duration.size(); ++k) {
    const KernelRow& row = rows[by_duration[k]];
    // (widened by a hair: look_alike decides, this only must not cut a look-alike off)
    while (rows[by_duration[first]].isolated_ns * (1 + kDurationTolerance) * (1 + 1e-9) < row.isolated_ns)
      ++first;
    fits.clear();
    for (std::size_t j = first; j < by_duration.size(); ++j) {
      const KernelRow& other = rows[by_duration[j]];
      if (other.isolated_ns > row.isolated_ns * (1 + kDurationTolerance) * (1 + 1e-9))
        break;
      if (look_alike(row, other))
        fits.push_back(fit_of(other));
    }
    labels[by_duration[k]] = typical_of(fits);
  }
  return labels;
}

} // namespace echo::slowdown
