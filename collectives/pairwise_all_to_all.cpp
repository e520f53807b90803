#include "collectives/pairwise_all_to_all.hpp"

#include <algorithm>

namespace echo::collectives {

namespace {

// Every member sends at once, so a send across nodes gets its GPU's share of the node's NICs (the
// whole NIC only where each GPU has its own), not the route's full rate. NCCL runs a member's sends
// to its peers on other nodes side by side, each on channels of its own: the schedule's sends, one
// after the other, go no faster than those channels together.
double send_Bps(const PlannedCall& p, const platforms::Route& route) {
  const double alone = p.costs.route_Bps(route);
  if (route.kind != platforms::LinkKind::network)
    return alone;
  double rate = alone;
  const double shared = p.costs.link_Bps[static_cast<int>(platforms::LinkKind::network)];
  if (shared > 0)
    rate = std::min(rate, shared);
  const double channels = p.costs.p2p_Bps[static_cast<int>(platforms::LinkKind::network)];
  return channels > 0 ? std::min(rate, channels) : rate;
}

} // namespace

Schedule PairwiseAllToAll::build(const PlannedCall& p) const {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  Schedule s(n);
  s.set_base_latency(p.costs.base_s);
  const std::uint64_t per_peer = p.call.bytes / n;  // B is the whole send buffer of one member
  s.reserve(std::size_t{n} * (n - 1), std::size_t{n} * (n - 1));
  for (std::uint32_t k = 1; k < n; ++k)
    for (std::uint32_t m = 0; m < n; ++m) {
      const std::uint32_t peer = (m + k) % n;
      const platforms::Route route = p.platform.route(p.call.gpus[m], p.call.gpus[peer]);
      const double serialize = static_cast<double>(per_peer) / send_Bps(p, route);
      if (k == 1)
        s.add_step(m, peer, per_peer, serialize, p.costs.hop(route.kind), {});
      else
        s.add_step(m, peer, per_peer, serialize, p.costs.hop(route.kind), {{(k - 2) * n + m, DepKind::order}});
    }
  s.finalize();
  return s;
}

std::optional<double> PairwiseAllToAll::closed_form_s(const PlannedCall& p) const {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  if (n < 2)
    return p.costs.base_s;
  const std::uint64_t per_peer = p.call.bytes / n;
  // Cost of a send to a peer in the same node (0) or another node (1), from one route of each.
  double serialize[2] = {0, 0}, latency[2] = {0, 0};
  bool known[2] = {false, false};
  for (std::uint32_t m = 1; m < n && !(known[0] && known[1]); ++m) {
    const int across = p.same_node(0, m) ? 0 : 1;
    if (known[across])
      continue;
    const platforms::Route route = p.platform.route(p.call.gpus[0], p.call.gpus[m]);
    serialize[across] = static_cast<double>(per_peer) / send_Bps(p, route);
    latency[across] = p.costs.hop(route.kind);
    known[across] = true;
  }
  // A member's sends go one after the other; each arrives a latency after it left.
  double slowest = 0.0;
  for (std::uint32_t m = 0; m < n; ++m) {
    double left = 0.0;
    for (std::uint32_t k = 1; k < n; ++k) {
      const int across = p.same_node(m, (m + k) % n) ? 0 : 1;
      left += serialize[across];
      slowest = std::max(slowest, left + latency[across]);
    }
  }
  return p.costs.base_s + slowest;
}

} // namespace echo::collectives
