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
  std::vector<double>& capacity = scratch_capacity_;
  std::vector<double>& rate_on = scratch_rate_;
  capacity.assign(n_links, 0.0);
  rate_on.assign(n_links, 0.0);
  // The step is done by `bound` at the latest (every other call on its links busy all the way,
  // every rate booked on a capacity link running all the way), so bookings that start later
  // cannot touch it: a ring books hundreds of steps ahead.
  std::size_t others = alongside;
  double slowest_capacity_share = 1.0;
  for (std::uint32_t l = 0; l < n_links; ++l) {
    auto it = links_.find(first[l]);
    if (it == links_.end())
      continue;
    const Link& link = it->second;
    if (link.capacity_Bps > 0.0 && demand == nullptr) {
      capacity[l] = -1.0;  // asked nothing of: it does not slow the step
      continue;
    }
    if (link.capacity_Bps > 0.0) {
      capacity[l] = link.capacity_Bps;
      double booked = demand[l].own_Bps + demand[l].batch_Bps;
      for (const Booking& b : link.bookings)
        if (b.left > start)
          booked += b.rate_Bps;
      slowest_capacity_share = std::min(slowest_capacity_share, link.capacity_Bps / std::max(booked, link.capacity_Bps));
      continue;
    }
    for (const Latest& latest : link.latest)
      others += latest.copies;
  }
  const double bound = start + serialize * std::max(1 + static_cast<double>(others), 1 / slowest_capacity_share);
  // Every booking that runs between `start` and `bound` (another call's; on a capacity link, its
  // own call's too), as a start and an end event per link; swept in time order, each stretch
  // between two events moves the step at the slowest of 1 / (1 + the most calls busy on one of
  // its links) and, per capacity link, capacity / the rates asking for it.
  std::vector<Event>& events = scratch_events_;
  events.clear();
  for (std::uint32_t l = 0; l < n_links; ++l) {
    auto it = links_.find(first[l]);
    if (it == links_.end())
      continue;
    const bool by_rate = capacity[l] > 0.0;
    if (capacity[l] < 0.0)
      continue;
    for (const Booking& b : it->second.bookings)
      if ((by_rate || b.call != call) && b.left > start && b.start < bound) {
        events.push_back({std::max(b.start, start), l, b.call, +1, b.copies, b.rate_Bps});
        events.push_back({b.left, l, b.call, -1, b.copies, b.rate_Bps});
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
    double share = 1.0;
    for (std::uint32_t l = 0; l < n_links; ++l) {
      if (capacity[l] < 0.0)
        continue;
      if (capacity[l] > 0.0) {
        const double asked = demand[l].own_Bps + demand[l].batch_Bps + std::max(0.0, rate_on[l]);
        share = std::min(share, capacity[l] / std::max(asked, capacity[l]));
      } else {
        most = std::max(most, counted[l]);
      }
    }
    return std::min(share, 1 / (1 + static_cast<double>(alongside + most)));
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
    if (capacity[e.link] > 0.0) {
      rate_on[e.link] += e.delta * e.rate_Bps;
      continue;
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
  // After the last booking: the steps alongside only (and the batch's rates on a capacity link).
  const bool by_rate = std::any_of(capacity.begin(), capacity.end(), [](double c) { return c > 0.0; });
  return by_rate ? t + left / pace() : t + left * (1 + alongside);
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
