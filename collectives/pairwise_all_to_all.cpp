#include "collectives/pairwise_all_to_all.hpp"

#include <algorithm>
#include <map>

namespace echo::collectives {

namespace {

// Every member sends at once, so a send across nodes gets its GPU's share of the node's NICs (the
// whole NIC only where each GPU has its own), not the route's full rate. NCCL runs a member's sends
// to its peers on other nodes side by side, each on channels of its own: the schedule's sends, one
// after the other, go no faster than those channels together.
double send_Bps(const PlannedCall& p, const platforms::Route& route) {
  const double alone = p.costs.route_Bps(route);
  if (route.kind != platforms::LinkKind::network)
    return alone;
  double rate = alone;
  const double shared = p.costs.link_Bps[static_cast<int>(platforms::LinkKind::network)];
  if (shared > 0)
    rate = std::min(rate, shared);
  const double channels = p.costs.p2p_Bps[static_cast<int>(platforms::LinkKind::network)];
  return channels > 0 ? std::min(rate, channels) : rate;
}

// Groups of nodes (pods) and their ways out, round by round: in round k every member m sends to
// m + k, and the members of a group whose peer sits in another group share the group's way out
// (a fat-tree pod's spine up-link, oversubscribed or not), as the members receiving from another
// group share its way in. With all members in one group nothing is shared and nothing changes.
class GroupRounds {
public:
  explicit GroupRounds(const PlannedCall& p) : n_(static_cast<std::uint32_t>(p.call.gpus.size())) {
    std::map<std::uint32_t, std::uint32_t> dense;
    group_.reserve(n_);
    for (std::uint32_t m = 0; m < n_; ++m)
      group_.push_back(dense.emplace(p.platform.group_of(p.node_of_member[m]), dense.size()).first->second);
    groups_ = static_cast<std::uint32_t>(dense.size());
    out_.assign(groups_, 0);
    in_.assign(groups_, 0);
  }
  bool spans_groups() const { return groups_ > 1; }
  bool crosses(std::uint32_t m, std::uint32_t peer) const { return group_[m] != group_[peer]; }

  void start_round(std::uint32_t k) {
    std::fill(out_.begin(), out_.end(), 0);
    std::fill(in_.begin(), in_.end(), 0);
    for (std::uint32_t m = 0; m < n_; ++m) {
      const std::uint32_t peer = (m + k) % n_;
      if (crosses(m, peer)) {
        ++out_[group_[m]];
        ++in_[group_[peer]];
      }
    }
  }
  // A crossing send's share of its group's way out and of its peer's group's way in.
  double share_Bps(std::uint32_t m, std::uint32_t peer, double exit_Bps) const {
    return exit_Bps / std::max(out_[group_[m]], in_[group_[peer]]);
  }

private:
  std::uint32_t n_, groups_ = 1;
  std::vector<std::uint32_t> group_, out_, in_;
};

// `own`: send_Bps on `route`, which a caller timing many sends on alike routes works out once.
double crossing_send_Bps(const PlannedCall& p, const platforms::Route& route, double own, const GroupRounds& rounds,
                         std::uint32_t m, std::uint32_t peer) {
  if (!p.costs.split_group_exits || route.group_exit_Bps <= 0 || !rounds.crosses(m, peer))
    return own;
  return std::min(own, rounds.share_Bps(m, peer, route.group_exit_Bps * p.costs.efficiency[static_cast<int>(route.kind)]));
}

} // namespace

Schedule PairwiseAllToAll::build(const PlannedCall& p) const {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  Schedule s(n);
  s.set_base_latency(p.costs.base_s);
  const std::uint64_t per_peer = p.call.bytes / n;  // B is the whole send buffer of one member
  s.reserve(std::size_t{n} * (n - 1), std::size_t{n} * (n - 1));
  GroupRounds rounds(p);
  if (rounds.spans_groups() && p.costs.split_group_exits)
    s.mark_group_exits_split();
  // A member's sends inside its node and its sends to other nodes are two chains, each one send
  // after the other, side by side: NCCL runs the rounds on channels of their own, so the NVLinks
  // and the NICs move their parts at once (a chain's sends share their links, as in turn).
  constexpr std::uint32_t kNone = ~0u;
  std::vector<std::uint32_t> last_local(n, kNone), last_remote(n, kNone);
  for (std::uint32_t k = 1; k < n; ++k) {
    if (rounds.spans_groups())
      rounds.start_round(k);
    for (std::uint32_t m = 0; m < n; ++m) {
      const std::uint32_t peer = (m + k) % n;
      const platforms::Route route = p.platform.route(p.call.gpus[m], p.call.gpus[peer]);
      const double serialize = static_cast<double>(per_peer) / crossing_send_Bps(p, route, send_Bps(p, route), rounds, m, peer);
      std::uint32_t& last = p.same_node(m, peer) ? last_local[m] : last_remote[m];
      if (last == kNone)
        last = s.add_step(m, peer, per_peer, serialize, p.costs.hop(route.kind), {});
      else
        last = s.add_step(m, peer, per_peer, serialize, p.costs.hop(route.kind), {{last, DepKind::order}});
    }
  }
  s.finalize();
  return s;
}

std::optional<double> PairwiseAllToAll::closed_form_s(const PlannedCall& p) const {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  if (n < 2)
    return p.costs.base_s;
  const std::uint64_t per_peer = p.call.bytes / n;
  GroupRounds rounds(p);
  // Routes are alike within each class of pair (the closed form's premise): in one node (0), in
  // another node of the member's group (1), in another group (2). One of each is asked for.
  const auto class_of = [&](std::uint32_t m, std::uint32_t peer) { return p.same_node(m, peer) ? 0 : rounds.crosses(m, peer) ? 2 : 1; };
  platforms::Route route[3];
  double own_Bps[3] = {0, 0, 0};
  bool known[3] = {false, false, false};
  // A member's sends go one after the other in each of its two chains (inside its node, to other
  // nodes); each arrives a latency after it left.
  std::vector<double> left_local(n, 0.0), left_remote(n, 0.0);
  double slowest = 0.0;
  for (std::uint32_t k = 1; k < n; ++k) {
    if (rounds.spans_groups())
      rounds.start_round(k);
    for (std::uint32_t m = 0; m < n; ++m) {
      const std::uint32_t peer = (m + k) % n;
      const int c = class_of(m, peer);
      if (!known[c]) {
        route[c] = p.platform.route(p.call.gpus[m], p.call.gpus[peer]);
        own_Bps[c] = send_Bps(p, route[c]);
        known[c] = true;
      }
      const platforms::Route& r = route[c];
      double& left = c == 0 ? left_local[m] : left_remote[m];
      left += static_cast<double>(per_peer) / crossing_send_Bps(p, r, own_Bps[c], rounds, m, peer);
      slowest = std::max(slowest, left + p.costs.hop(r.kind));
    }
  }
  return p.costs.base_s + slowest;
}

} // namespace echo::collectives
