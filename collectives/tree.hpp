#pragma once
// NCCL's tree AllReduce: inside each node a chain of its GPUs, across nodes a binary tree of the
// nodes' first GPUs (NCCL runs two such trees, each with half the data and channels, so that every
// node is a leaf in one of them; that balance is in the bandwidth, one tree carries the schedule).
// The message goes up the chains and the tree (each hop reduces), then down the tree and the
// chains, every hop streaming on the protocol's pipeline units as they arrive. So
//   time = base + B / bandwidth + the deepest up-and-down path, each hop costing its latency and
//          one pipeline unit (less one unit for the path).
#include "collectives/algorithm.hpp"

namespace echo::collectives {

class TreeAlgorithm final : public Algorithm {
public:
  std::string name() const override { return "Tree"; }
  std::string unsupported(const CollectiveCall& call, const CommShape& shape) const override;
  Schedule build(const PlannedCall& call) const override;
  std::optional<double> closed_form_s(const PlannedCall& call) const override;
};

} // namespace echo::collectives
