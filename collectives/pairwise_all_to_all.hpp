#pragma once
// AllToAll as grouped point-to-point sends: each member sends B/n bytes to every other member,
// in rounds (round k: member m sends to m+k and receives from m-k), one send after the other on
// its way out of the GPU. Each member's sends are serialized, each costs the route to its peer.
#include "collectives/algorithm.hpp"

namespace echo::collectives {

class PairwiseAllToAll final : public Algorithm {
public:
  std::string name() const override { return "pairwise"; }
  bool supports(const CollectiveCall& call) const override { return call.op == Op::all_to_all && !call.gpus.empty(); }
  Schedule build(const CollectiveCall& call, const platforms::RouteOracle& routes) const override;
};

} // namespace echo::collectives
