#pragma once
// Send/recv between two ranks: one rendezvous transfer. It starts when both sides have reached
// their call; the sender is done when the last byte has left, the receiver when it has arrived.
// Member 0 is the sender, member 1 the receiver.
#include "collectives/algorithm.hpp"

namespace echo::collectives {

class PointToPoint final : public Algorithm {
public:
  std::string name() const override { return "p2p"; }
  bool supports(const CollectiveCall& call) const override {
    return call.op == Op::send_recv && call.gpus.size() == 2;
  }
  Schedule build(const CollectiveCall& call, const platforms::RouteOracle& routes) const override {
    Schedule s(2);
    s.add_step(0, 1, call.bytes, routes.route(call.gpus[0], call.gpus[1]), {}, false, true);
    s.finalize();
    return s;
  }
};

} // namespace echo::collectives
