#pragma once
// NCCL's double binary tree AllReduce. Inside each node a chain of its GPUs; across nodes two
// binary trees of the nodes' first GPUs, each carrying half of the message on half of the
// channels. The second tree is the first mirrored (an even number of nodes) or shifted by one (an
// odd number), so that a node that is a leaf in one tree is inside the other and every node's
// NICs work in both. Each half goes up the chains and its tree (each hop reduces), then down the
// tree and the chains, every hop streaming on the protocol's pipeline units as they arrive. So
//   time = base + B / bandwidth + the deepest up-and-down path of either tree, each hop costing
//          its latency and one pipeline unit (less one unit for the path).
// The trees are NCCL's in-order binary trees over node indices (node 0 the root of the first):
// node k's parent is found from its lowest set bit, as in NCCL's trees.cc.
#include "collectives/algorithm.hpp"

namespace echo::collectives {

class TreeAlgorithm final : public Algorithm {
public:
  std::string name() const override { return "Tree"; }
  bool builds_from_shape() const override { return true; }
  std::string unsupported(const CollectiveCall& call, const CommShape& shape) const override;
  Schedule build(const PlannedCall& call) const override;
  std::optional<double> closed_form_s(const PlannedCall& call) const override;
  std::uint64_t step_count(const PlannedCall& call) const override { return 4 * (call.call.gpus.size() - 1); }
};

// Parent of node `k` of `n` in tree 0 or 1 of the double binary tree; -1 for a root.
std::int64_t dtree_parent(std::uint32_t n, std::uint32_t k, int tree);

} // namespace echo::collectives
