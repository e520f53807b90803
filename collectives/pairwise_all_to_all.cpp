#include "collectives/pairwise_all_to_all.hpp"

namespace echo::collectives {

Schedule PairwiseAllToAll::build(const CollectiveCall& call, const platforms::RouteOracle& routes) const {
  const auto n = static_cast<std::uint32_t>(call.gpus.size());
  Schedule s(n);
  const std::uint64_t per_peer = call.bytes / n;  // B is the whole send buffer of one member
  for (std::uint32_t k = 1; k < n; ++k)
    for (std::uint32_t m = 0; m < n; ++m) {
      const std::uint32_t peer = (m + k) % n;
      const platforms::Route route = routes.route(call.gpus[m], call.gpus[peer]);
      if (k == 1)
        s.add_step(m, peer, per_peer, route, {});
      else
        s.add_step(m, peer, per_peer, route, {{(k - 2) * n + m, false}});
    }
  s.finalize();
  return s;
}

} // namespace echo::collectives
