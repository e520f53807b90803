#include "core/collective_stats.hpp"

#include <algorithm>

namespace echo::core {

void CollectiveStats::record(std::uint32_t comm, const std::string& communicator, int op, const std::string& op_name,
                             std::uint64_t bytes, const std::string& choice, double seconds) {
  CollectiveStat& stat = stats_[Key{comm, op, bytes}];
  if (stat.calls++ == 0) {
    stat.communicator = communicator;
    stat.op = op_name;
    stat.bytes = bytes;
    stat.choice = choice;
  }
  stat.total_s += seconds;
}

void CollectiveStats::copy_to(std::uint32_t from, std::uint32_t to, const std::string& name) {
  std::vector<std::pair<Key, CollectiveStat>> copies;
  for (auto it = stats_.lower_bound(Key{from, 0, 0}); it != stats_.end() && it->first.comm == from; ++it) {
    CollectiveStat copy = it->second;
    copy.communicator = name;
    copies.emplace_back(Key{to, it->first.op, it->first.bytes}, std::move(copy));
  }
  for (auto& [key, stat] : copies)
    stats_[key] = std::move(stat);
}

std::vector<CollectiveStat> CollectiveStats::sorted() const {
  std::vector<CollectiveStat> out;
  for (const auto& [key, stat] : stats_)
    out.push_back(stat);
  std::stable_sort(out.begin(), out.end(), [](const CollectiveStat& a, const CollectiveStat& b) { return a.total_s > b.total_s; });
  return out;
}

} // namespace echo::core
