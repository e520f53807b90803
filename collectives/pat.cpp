#include "collectives/pat.hpp"

#include "collectives/ring.hpp"

#include <algorithm>

namespace echo::collectives {

namespace {

// Slices of B/n each member sends per round, in AllGather order.
std::vector<std::uint32_t> round_slices(std::uint32_t n) {
  std::vector<std::uint32_t> slices;
  for (std::uint32_t have = 1; have < n; have *= 2)
    slices.push_back(std::min(have, n - have));
  return slices;
}

} // namespace

std::string PatAlgorithm::unsupported(const CollectiveCall& call, const CommShape& shape) const {
  if (call.op != Op::all_gather && call.op != Op::reduce_scatter)
    return "PAT runs AllGather and ReduceScatter";
  return shape.ppn == 1 ? std::string() : "PAT needs one GPU per node";
}

Schedule PatAlgorithm::build(const PlannedCall& p) const {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  Schedule s(n);
  s.set_base_latency(p.costs.base_s);
  auto slices = round_slices(n);
  std::vector<std::uint32_t> distance;
  for (std::uint32_t d = 1; d < n; d *= 2)
    distance.push_back(d);
  const bool reduce = p.call.op == Op::reduce_scatter;
  if (reduce) {  // the AllGather rounds backwards
    std::reverse(slices.begin(), slices.end());
    std::reverse(distance.begin(), distance.end());
  }
  // n-1 slices per member in all, together taking B / bandwidth.
  const double per_slice = static_cast<double>(p.call.bytes) / ((n - 1.0) * p.costs.algorithm_Bps);
  const auto order = ring_order(p);  // one GPU per node: node order
  s.reserve(slices.size() * n, 2 * slices.size() * n);
  for (std::uint32_t r = 0; r < slices.size(); ++r)
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t from = order[i], to = order[(i + n - distance[r]) % n];
      const std::uint64_t bytes = p.call.bytes / n * slices[r];
      const double serialize = per_slice * slices[r];
      const double latency = p.costs.hop(p.hop_kind(from, to));
      if (r == 0) {
        s.add_step(from, to, bytes, serialize, latency, {}, reduce);
      } else {
        // Forward what arrived last round (from the member distance[r-1] after), after own send.
        const std::uint32_t sender = (i + distance[r - 1]) % n;
        s.add_step(from, to, bytes, serialize, latency, {{(r - 1) * n + sender, DepKind::data}, {(r - 1) * n + i, DepKind::order}},
                   reduce);
      }
    }
  s.finalize();
  return s;
}

std::optional<double> PatAlgorithm::closed_form_s(const PlannedCall& p) const {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  if (n < 2)
    return p.costs.base_s;
  // Rounds run in lock-step on alike network hops: each costs its slices and one latency.
  const double latency = p.costs.hop(platforms::LinkKind::network);
  double total = p.costs.base_s;
  const double per_slice = static_cast<double>(p.call.bytes) / ((n - 1.0) * p.costs.algorithm_Bps);
  for (std::uint32_t slices : round_slices(n))
    total += per_slice * slices + latency;
  return total;
}

} // namespace echo::collectives
