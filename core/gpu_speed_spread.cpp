#include "core/gpu_speed_spread.hpp"

#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <numeric>

namespace echo::core {

namespace {

// SplitMix64's finaliser: a fixed scramble of the rank order, so that neighbouring ranks (one
// node, one pipeline stage) do not get neighbouring speeds.
std::uint64_t scramble(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

} // namespace

GpuPace gpu_pace(const workloads::Workload& w, double spread) {
  const std::uint32_t n = w.rank_count();
  GpuPace pace;
  pace.time_factor.assign(n, 1.0);
  std::vector<double>& factor = pace.time_factor;
  if (spread <= 0.0 || n < 2)
    return pace;

  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [](std::uint32_t a, std::uint32_t b) {
    const std::uint64_t ha = scramble(a), hb = scramble(b);
    return ha != hb ? ha < hb : a < b;
  });
  const boost::math::normal standard;
  for (std::uint32_t i = 0; i < n; ++i)
    factor[order[i]] = 1.0 + spread * boost::math::quantile(standard, (i + 0.5) / n);
  pace.slowest_rank = order.back();
  pace.slowest = factor[order.back()];

  // Ranks joined by a paced communicator, directly or through others, run at the slowest one's pace.
  std::vector<std::uint32_t> group(n);
  std::iota(group.begin(), group.end(), 0u);
  const auto root = [&](std::uint32_t r) {
    while (group[r] != r)
      r = group[r] = group[group[r]];
    return r;
  };
  for (const workloads::CommunicatorDef& c : w.communicators) {
    const bool paced = std::find(w.paced_slots.begin(), w.paced_slots.end(), w.slots[c.slot]) != w.paced_slots.end();
    if (!paced || c.ranks.empty())
      continue;
    for (std::uint32_t r : c.ranks)
      group[root(r)] = root(c.ranks.front());
  }
  std::vector<double> slowest(n, 0.0);
  for (std::uint32_t r = 0; r < n; ++r)
    slowest[root(r)] = std::max(slowest[root(r)], factor[r]);
  for (std::uint32_t r = 0; r < n; ++r)
    factor[r] = slowest[root(r)];
  return pace;
}

} // namespace echo::core
