#pragma once
// AllToAll as NCCL runs it: grouped point-to-point sends, each member sending B/n bytes to every
// other member in rounds (round k: member m sends to m+k and receives from m-k), one send after
// the other on its way out of the GPU. Each send runs at its route's bandwidth and pays its hop;
// across nodes at the GPU's share of its node's NICs, since every member sends at once.
#include "collectives/algorithm.hpp"

namespace echo::collectives {

class PairwiseAllToAll final : public Algorithm {
public:
  std::string name() const override { return "pairwise"; }
  std::string unsupported(const CollectiveCall& call, const CommShape&) const override {
    return call.op == Op::all_to_all ? std::string() : "pairwise runs AllToAll only";
  }
  Schedule build(const PlannedCall& call) const override;
  // Exact for platforms where all pairs inside a node, and all pairs across nodes, have alike
  // routes (every preset): one route of each kind is asked for, not n^2.
  std::optional<double> closed_form_s(const PlannedCall& call) const override;
  std::uint64_t step_count(const PlannedCall& p) const override {
    const std::uint64_t n = p.call.gpus.size();
    return n * (n > 0 ? n - 1 : 0);
  }
};

} // namespace echo::collectives
