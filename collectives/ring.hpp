#pragma once
// Ring algorithms, in member order (member i sends to member i+1):
//   AllReduce: 2(n-1) steps of ceil(B/n) bytes per member (reduce-scatter then all-gather);
//   AllGather / ReduceScatter: n-1 steps of ceil(B/n) bytes;
//   Broadcast / Reduce: a chain from (to) the root, pipelined in chunks so that a large message
//   costs about B/bw + (n-1) * latency, as NCCL's ring broadcast does.
#include "collectives/algorithm.hpp"

namespace echo::collectives {

class RingAlgorithm final : public Algorithm {
public:
  // Chain pipelining: chunks of at least this size, and at most kMaxChunks of them.
  static constexpr std::uint64_t kChunkBytes = 512 * 1024;
  static constexpr std::uint64_t kMaxChunks = 256;

  std::string name() const override { return "ring"; }
  bool supports(const CollectiveCall& call) const override;
  Schedule build(const CollectiveCall& call, const platforms::RouteOracle& routes) const override;
};

} // namespace echo::collectives
