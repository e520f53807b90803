#pragma once
// Recursive halving-doubling AllReduce (Rabenseifner): a researcher's algorithm, added to
// echo-des without touching core/.
//
// With n = 2^L members, the reduce-scatter halves: in round k (k = 0..L-1) member m exchanges
// half of its current segment, B / 2^(k+1) bytes, with partner m XOR n/2^(k+1), and reduces what
// it receives. After L rounds each member holds B/n reduced bytes. The all-gather then doubles
// back: round k exchanges B / 2^(L-k) bytes with partner m XOR 2^k... in the reverse order of
// distances. 2 log2(n) rounds in all, moving 2 (n-1)/n B per member, like a ring, but with
// log2(n) latencies instead of n.
//
// Each exchange is one step per direction. A step forwards what the member received in the
// round before (a data dependency) and follows its own previous send (an order dependency). It
// costs the hop's latency and its bytes at what one GPU can push over that kind of hop with the
// channels in use (StepCosts::link_Bps), so the same class prices NVLink and network hops.
#include "collectives/algorithm.hpp"

namespace example {

class HalvingDoubling final : public echo::collectives::Algorithm {
public:
  std::string name() const override { return "HalvingDoubling"; }
  std::string unsupported(const echo::collectives::CollectiveCall& call,
                          const echo::collectives::CommShape& shape) const override;
  echo::collectives::Schedule build(const echo::collectives::PlannedCall& call) const override;
  std::optional<double> closed_form_s(const echo::collectives::PlannedCall& call) const override;
};

} // namespace example
