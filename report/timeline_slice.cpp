#include "report/timeline_slice.hpp"

#include <algorithm>

namespace echo::report {

std::vector<std::uint32_t> timeline_slice(const workloads::Workload& w, std::size_t max_ranks) {
  auto first_members = [&](const std::vector<const char*>& names) {
    std::vector<std::uint32_t> slots, ranks;
    for (const char* name : names)
      if (auto it = std::find(w.slots.begin(), w.slots.end(), name); it != w.slots.end())
        slots.push_back(static_cast<std::uint32_t>(it - w.slots.begin()));
    for (std::uint32_t r = 0; r < w.rank_count(); ++r)
      if (std::all_of(slots.begin(), slots.end(),
                      [&](std::uint32_t s) { return w.communicator(r, s) < 0 || w.member_index(r, s) == 0; }))
        ranks.push_back(r);
    return ranks;
  };
  std::vector<std::uint32_t> ranks = first_members({"dp"});
  if (ranks.size() > max_ranks)
    ranks = first_members({"dp", "tp"});
  if (ranks.size() > max_ranks)
    ranks.resize(max_ranks);
  return ranks;
}

} // namespace echo::report
