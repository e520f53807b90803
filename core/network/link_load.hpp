#pragma once
// LinkLoad: who uses which link when, so that collectives running at the same time share it
// (`steps` fidelity, DESIGN.md: a step costs latency + bytes / (bandwidth / sharers)).
//
// A link here is what a step's bytes leave a GPU through: its intra-node links (NVLink or PCIe)
// for a hop inside the node, or NICs for a hop across nodes — every NIC the call's members use on
// that node, since a call's channels are spread over them. Calls *claim* the links of their
// schedule while open; a step is *booked* on its links for [start, left).
//
//   contended(): another open call may use the link at or after `t` — it has booked it past `t`
//                or has steps not yet timed. Such a step waits until simulated time reaches its
//                start, then...
//   shared_end(): ...moves, at each instant of its way, at 1 / (1 + k) of its own rate, k the
//                other calls booked then on its busiest link (plus `alongside`: steps starting at
//                the same instant, timed together). A booking counts as many calls as it has
//                copies (a folded run's call standing for mirrored ranks' calls on that link too:
//                network::LinkCopies). Counted over the whole step, not at its
//                start: a step that starts in the gap between two of another ring's steps (their
//                hop latency) still shares the link with the next one.
// Steps no other call can meet are timed at once, exactly as if alone.
//
// A *capacity* link (a pod's up-link to the spine: group_link) is not one a step fills. Every
// booking there carries its rate (bytes per second, times its copies), and a step on it moves,
// for its whole way, at min(1, capacity / the rates running there at its start with its own and
// the batch's, its own call's included): an AllToAll's schedule splits a pod's way out between
// its own members already (StepCosts::split_group_exits), so a call alone there is never slowed,
// and two calls each filling it take twice as long while one that uses a sliver of it slows the
// other by a sliver.
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

namespace echo::core::network {

class LinkLoad {
public:
  using LinkId = std::uint64_t;
  using CallId = std::uint64_t;
  // Whether a call still has steps whose time is not known.
  using Pending = std::function<bool(CallId)>;

  static LinkId intra_link(std::uint32_t gpu) { return std::uint64_t{gpu} << 1; }
  static LinkId nic(std::uint32_t node, std::uint32_t nic) {
    return (((std::uint64_t{node} << 16) | nic) << 1) | 1;
  }
  static std::uint32_t nic_index(LinkId id) { return static_cast<std::uint32_t>((id >> 1) & 0xffff); }
  // The way out of (or into) a group of nodes (platforms::RouteOracle::group_of): a capacity link.
  static LinkId group_link(std::uint32_t group, bool entry) {
    return (std::uint64_t{1} << 63) | (std::uint64_t{group} << 2) | (entry ? 2u : 0u) | 1u;
  }
  static bool is_group_link(LinkId id) { return (id >> 63) != 0; }

  // What a step asks of a capacity link in shared_end(): its own rate (times its copies there) and
  // that of the other steps of its batch on it.
  struct Demand {
    double own_Bps = 0.0;
    double batch_Bps = 0.0;
  };

  explicit LinkLoad(Pending pending) : pending_(std::move(pending)) {}

  // Makes `link` a capacity link of `Bps` (the same figure again changes nothing).
  void set_capacity(LinkId link, double Bps) { links_[link].capacity_Bps = Bps; }
  // 0 unless `link` is a capacity link.
  double capacity_Bps(LinkId link) const {
    const auto it = links_.find(link);
    return it == links_.end() ? 0.0 : it->second.capacity_Bps;
  }
  void claim(CallId call, const std::vector<LinkId>& links);
  void release(CallId call, const std::vector<LinkId>& links);

  bool contended(LinkId link, CallId call, double t) const;
  // When a step of `call` that needs its links alone for `serialize` seconds ends if it starts at
  // `start` and shares them with the calls booked on them (see above).
  // `demand`: per link of [first, last), what the step asks of it if it is a capacity link
  // (nullptr: nothing, capacity links then do not slow it).
  double shared_end(const LinkId* first, const LinkId* last, CallId call, double start, double serialize,
                    std::uint32_t alongside = 0, const Demand* demand = nullptr) const;
  // Books [start, left), as `copies` calls, and forgets bookings of the link that ended before `now`.
  // `rate_Bps`: the step's rate on a capacity link, times its copies.
  void book(LinkId link, CallId call, double start, double left, double now, std::uint32_t copies = 1,
            double rate_Bps = 0.0);

private:
  struct Booking {
    double start, left;
    CallId call;
    std::uint32_t copies;
    double rate_Bps;
  };
  struct Latest {
    CallId call;
    double left;
    std::uint32_t copies;
  };
  struct Link {
    std::vector<CallId> claims;
    std::vector<Booking> bookings;
    // Per call with bookings here, the latest end among them: contended() asks only that, and a
    // long call books hundreds of steps ahead on one link (a 256-member ring) for a few calls.
    std::vector<Latest> latest;
    // Bookings that ended are forgotten when the list doubles (amortised), not on every booking:
    // every query asks about now or later, where an ended booking counts for nothing anyway.
    std::size_t forget_at = 32;
    double capacity_Bps = 0.0;  // > 0: a capacity link
  };
  static void raise_latest(Link& link, CallId call, double left, std::uint32_t copies);

  struct Event {
    double t;
    std::uint32_t link;  // index among the step's links
    CallId call;
    int delta;  // +1 a booking starts, -1 it ends
    std::uint32_t copies;
  };
  struct Running {
    CallId call;
    int bookings;  // of the call running on the link (its channels may overlap)
    std::uint32_t copies;
  };
  // shared_end()'s working space, kept between calls: it runs once per held step.
  mutable std::vector<Event> scratch_events_;
  mutable std::vector<std::vector<Running>> scratch_running_;
  mutable std::vector<std::size_t> scratch_counted_;  // per link: the running calls' copies, summed
  mutable std::vector<std::uint8_t> scratch_by_rate_;  // per link: a capacity link

  Pending pending_;
  std::unordered_map<LinkId, Link> links_;
};

} // namespace echo::core::network
