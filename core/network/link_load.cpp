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
                     [&](const std::pair<CallId, double>& l) { return l.first != call && l.second > t; });
}

std::uint32_t LinkLoad::sharers(LinkId id, CallId call, double t) const {
  auto it = links_.find(id);
  if (it == links_.end())
    return 0;
  std::vector<CallId> busy;
  for (const Booking& b : it->second.bookings)
    if (b.call != call && b.start <= t && t < b.left && std::find(busy.begin(), busy.end(), b.call) == busy.end())
      busy.push_back(b.call);
  return static_cast<std::uint32_t>(busy.size());
}

void LinkLoad::book(LinkId id, CallId call, double start, double left, double now) {
  Link& link = links_[id];
  auto& bookings = link.bookings;
  if (bookings.size() >= link.forget_at) {
    bookings.erase(std::remove_if(bookings.begin(), bookings.end(), [&](const Booking& b) { return b.left <= now; }),
                   bookings.end());
    link.latest.clear();
    for (const Booking& b : bookings)
      raise_latest(link, b.call, b.left);
    link.forget_at = std::max<std::size_t>(32, 2 * bookings.size());
  }
  bookings.push_back({start, left, call});
  raise_latest(link, call, left);
}

void LinkLoad::raise_latest(Link& link, CallId call, double left) {
  for (auto& [c, latest] : link.latest)
    if (c == call) {
      latest = std::max(latest, left);
      return;
    }
  link.latest.emplace_back(call, left);
}

} // namespace echo::core::network
