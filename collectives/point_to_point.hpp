#pragma once
// Send/recv between two ranks: one rendezvous transfer. It starts when both sides have reached
// their call; the sender is done when the last byte has left, the receiver when it has arrived.
// Member 0 is the sender, member 1 the receiver. It runs at the route's bandwidth (times the
// calibrated efficiency of that kind of link), held to what the channels NCCL gives one peer
// carry (p2p_channels.hpp), and pays one hop's latency.
#include "collectives/algorithm.hpp"

namespace echo::collectives {

class PointToPoint final : public Algorithm {
public:
  std::string name() const override { return "p2p"; }
  std::string unsupported(const CollectiveCall& call, const CommShape&) const override {
    return call.op == Op::send_recv && call.gpus.size() == 2 ? std::string() : "p2p runs send/recv between two ranks";
  }
  Schedule build(const PlannedCall& p) const override {
    Schedule s(2);
    s.set_base_latency(p.costs.base_s);
    const platforms::Route route = p.platform.route(p.call.gpus[0], p.call.gpus[1]);
    s.add_step(0, 1, p.call.bytes, static_cast<double>(p.call.bytes) / p.costs.p2p_route_Bps(route),
               p.costs.hop(route.kind), {}, false, true);
    s.finalize();
    return s;
  }
  std::optional<double> closed_form_s(const PlannedCall& p) const override {
    const platforms::Route route = p.platform.route(p.call.gpus[0], p.call.gpus[1]);
    return p.costs.base_s + static_cast<double>(p.call.bytes) / p.costs.p2p_route_Bps(route) + p.costs.hop(route.kind);
  }
};

} // namespace echo::collectives
