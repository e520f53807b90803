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
//   sharers():   ...counts the other calls busy on the link at that instant.
// Steps no other call can meet are timed at once, exactly as if alone.
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

  explicit LinkLoad(Pending pending) : pending_(std::move(pending)) {}

  void claim(CallId call, const std::vector<LinkId>& links);
  void release(CallId call, const std::vector<LinkId>& links);

  bool contended(LinkId link, CallId call, double t) const;
  std::uint32_t sharers(LinkId link, CallId call, double t) const;
  // Books [start, left) and forgets bookings of the link that ended before `now`.
  void book(LinkId link, CallId call, double start, double left, double now);

private:
  struct Booking {
    double start, left;
    CallId call;
  };
  struct Link {
    std::vector<CallId> claims;
    std::vector<Booking> bookings;
    // Per call with bookings here, the latest end among them: contended() asks only that, and a
    // long call books hundreds of steps ahead on one link (a 256-member ring) for a few calls.
    std::vector<std::pair<CallId, double>> latest;
    // Bookings that ended are forgotten when the list doubles (amortised), not on every booking:
    // every query asks about now or later, where an ended booking counts for nothing anyway.
    std::size_t forget_at = 32;
  };
  static void raise_latest(Link& link, CallId call, double left);

  Pending pending_;
  std::unordered_map<LinkId, Link> links_;
};

} // namespace echo::core::network
