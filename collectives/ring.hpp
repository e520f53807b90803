#pragma once
// NCCL's ring. Members are put in ring order the way NCCL builds its rings: node by node, the
// GPUs of a node one after the other, so a ring leaves and enters each node once (on one rail per
// channel; all channels are carried by each step together).
//   AllReduce: 2(n-1) steps of B/n bytes per member (reduce-scatter, then all-gather);
//   AllGather / ReduceScatter: n-1 steps of B/n bytes;
//   Broadcast / Reduce: a chain from (to) the root; each hop streams the message on as its
//   protocol's pipeline units arrive (pipeline_unit.hpp).
// Every step of a call moves at the call's ring bandwidth (the slowest edge paces a ring) and pays
// the hop latency of its own edge, so the call takes
//   base + steps * B/n / busbw + the largest sum of hop latencies over `steps` consecutive edges.
#include "collectives/algorithm.hpp"

namespace echo::collectives {

class RingAlgorithm final : public Algorithm {
public:
  std::string name() const override { return "Ring"; }
  bool builds_from_shape() const override { return true; }
  std::string unsupported(const CollectiveCall& call, const CommShape& shape) const override;
  Schedule build(const PlannedCall& call) const override;
  std::optional<double> closed_form_s(const PlannedCall& call) const override;
  std::uint64_t step_count(const PlannedCall& call) const override;
  // AllReduce / AllGather / ReduceScatter rings whose members each pass to the member a fixed
  // offset ahead over hops alike (one member per node, or one node); chains are not symmetric.
  std::optional<Schedule> build_for_member(const PlannedCall& call, std::uint32_t self) const override;
};

// Ring order of the members (node by node, by member index inside a node), shared with
// algorithms that build on rings.
std::vector<std::uint32_t> ring_order(const PlannedCall& call);

// The members grouped by node, in ring order: a node's first member is its head (trees), and
// local index l of every node is one rail.
std::vector<std::vector<std::uint32_t>> members_by_node(const PlannedCall& call);

// Depth of node k in the binary heap that numbers a tree's nodes (node k's parent is (k-1)/2).
std::uint32_t heap_depth(std::uint32_t k);

} // namespace echo::collectives
