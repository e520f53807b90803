#include "core/network/link_load.hpp"

#include <algorithm>

namespace echo::core::network {

void LinkLoad::claim(CallId call, const std::vector<LinkId>& links) {
  for (LinkId id : links)
    links_[id].claims.push_back(call);
}

void LinkLoad::release(CallId call, const std::vector<LinkId>& links) {
  for (LinkId id : links) {
    auto it = links_.find(id);
    if (it == links_.end())
      continue;
    auto& claims = it->second.claims;
    claims.erase(std::remove(claims.begin(), claims.end(), call), claims.end());
    if (claims.empty() && it->second.bookings.empty())
      links_.erase(it);
  }
}

bool LinkLoad::contended(LinkId id, CallId call, double t) const {
  auto it = links_.find(id);
  if (it == links_.end())
    return false;
  for (CallId other : it->second.claims)
    if (other != call && pending_(other))
      return true;
  return std::any_of(it->second.latest.begin(), it->second.latest.end(),
                     [&](const Latest& l) { return l.call != call && l.left > t; });
}

double LinkLoad::shared_end(const LinkId* first, const LinkId* last, CallId call, double start, double serialize,
                            std::uint32_t alongside, const Demand* demand) const {
  const auto n_links = static_cast<std::uint32_t>(last - first);
  std::vector<std::uint8_t>& by_rate = scratch_by_rate_;
  by_rate.assign(n_links, 0);
  // Capacity links: the share of what is asked of each at the step's start (DESIGN.md's rule,
  // counted at the start; the thousands of AllToAll steps crossing one up-link at once made a
  // sweep over their ends the whole run's cost), the slowest one holding for the whole step.
  // The step is done by `bound` at the latest (every other call on its fill links busy all the
  // way), so bookings that start later cannot touch it: a ring books hundreds of steps ahead.
  std::size_t others = alongside;
  double capacity_share = 1.0;
  bool any_capacity = false;
  for (std::uint32_t l = 0; l < n_links; ++l) {
    auto it = links_.find(first[l]);
    if (it == links_.end())
      continue;
    const Link& link = it->second;
    if (link.capacity_Bps > 0.0) {
      by_rate[l] = 1;
      if (demand == nullptr)
        continue;  // asked nothing of: it does not slow the step
      any_capacity = true;
      double asked = demand[l].own_Bps + demand[l].batch_Bps;
      for (const Booking& b : link.bookings)
        if (b.start <= start && b.left > start)
          asked += b.rate_Bps;
      capacity_share = std::min(capacity_share, link.capacity_Bps / std::max(asked, link.capacity_Bps));
      continue;
    }
    for (const Latest& latest : link.latest)
      others += latest.copies;
  }
  const double bound = start + serialize * (1 + static_cast<double>(others)) / capacity_share;
  // Every other call's booking on a fill link that runs between `start` and `bound`, as a start
  // and an end event per link; swept in time order, each stretch between two events moves the
  // step at 1 / (1 + the most calls busy on one of its links), or the capacity links' share if
  // that is slower.
  std::vector<Event>& events = scratch_events_;
  events.clear();
  for (std::uint32_t l = 0; l < n_links; ++l) {
    if (by_rate[l] != 0)
      continue;
    auto it = links_.find(first[l]);
    if (it == links_.end())
      continue;
    for (const Booking& b : it->second.bookings)
      if (b.call != call && b.left > start && b.start < bound) {
        events.push_back({std::max(b.start, start), l, b.call, +1, b.copies});
        events.push_back({b.left, l, b.call, -1, b.copies});
      }
  }
  // Ends before starts at one instant: back-to-back steps of one call do not count twice.
  std::sort(events.begin(), events.end(),
            [](const Event& a, const Event& b) { return a.t != b.t ? a.t < b.t : a.delta < b.delta; });
  // Per link, the calls running on it, and how many calls they count for (their copies).
  std::vector<std::vector<Running>>& running = scratch_running_;
  std::vector<std::size_t>& counted = scratch_counted_;
  running.resize(std::max<std::size_t>(running.size(), n_links));
  counted.assign(n_links, 0);
  for (std::uint32_t l = 0; l < n_links; ++l)
    running[l].clear();
  auto pace = [&] {
    std::size_t most = 0;
    for (std::uint32_t l = 0; l < n_links; ++l)
      most = std::max(most, counted[l]);
    return std::min(capacity_share, 1 / (1 + static_cast<double>(alongside + most)));
  };
  double t = start, left = serialize;
  for (const Event& e : events) {
    if (e.t > t) {
      const double rate = pace();
      if (left <= (e.t - t) * rate)
        return t + left / rate;
      left -= (e.t - t) * rate;
      t = e.t;
    }
    auto& calls = running[e.link];
    auto it = std::find_if(calls.begin(), calls.end(), [&](const Running& c) { return c.call == e.call; });
    if (it == calls.end()) {
      it = calls.insert(calls.end(), {e.call, 0, e.copies});
      counted[e.link] += e.copies;
    }
    if ((it->bookings += e.delta) == 0) {
      counted[e.link] -= it->copies;
      calls.erase(it);
    }
  }
  // After the last booking: the steps alongside only (and the capacity links' share).
  return any_capacity ? t + left / pace() : t + left * (1 + alongside);
}

void LinkLoad::book(LinkId id, CallId call, double start, double left, double now, std::uint32_t copies, double rate_Bps) {
  Link& link = links_[id];
  auto& bookings = link.bookings;
  if (bookings.size() >= link.forget_at) {
    bookings.erase(std::remove_if(bookings.begin(), bookings.end(), [&](const Booking& b) { return b.left <= now; }),
                   bookings.end());
    link.latest.clear();
    for (const Booking& b : bookings)
      raise_latest(link, b.call, b.left, b.copies);
    link.forget_at = std::max<std::size_t>(32, 2 * bookings.size());
  }
  bookings.push_back({start, left, call, copies, rate_Bps});
  raise_latest(link, call, left, copies);
}

void LinkLoad::raise_latest(Link& link, CallId call, double left, std::uint32_t copies) {
  for (Latest& l : link.latest)
    if (l.call == call) {
      l.left = std::max(l.left, left);
      l.copies = std::max(l.copies, copies);
      return;
    }
  link.latest.push_back({call, left, copies});
}

} // namespace echo::core::network
