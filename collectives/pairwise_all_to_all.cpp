#include "collectives/pairwise_all_to_all.hpp"

namespace echo::collectives {

Schedule PairwiseAllToAll::build(const PlannedCall& p) const {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  Schedule s(n);
  s.set_base_latency(p.costs.base_s);
  const std::uint64_t per_peer = p.call.bytes / n;  // B is the whole send buffer of one member
  for (std::uint32_t k = 1; k < n; ++k)
    for (std::uint32_t m = 0; m < n; ++m) {
      const std::uint32_t peer = (m + k) % n;
      const platforms::Route route = p.platform.route(p.call.gpus[m], p.call.gpus[peer]);
      const double serialize = static_cast<double>(per_peer) / p.costs.route_Bps(route);
      if (k == 1)
        s.add_step(m, peer, per_peer, serialize, p.costs.hop(route.kind), {});
      else
        s.add_step(m, peer, per_peer, serialize, p.costs.hop(route.kind), {{(k - 2) * n + m, DepKind::order}});
    }
  s.finalize();
  return s;
}

} // namespace echo::collectives
