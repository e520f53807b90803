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

std::vector<CollectiveStat> CollectiveStats::sorted() const {
  std::vector<CollectiveStat> out;
  for (const auto& [key, stat] : stats_)
    out.push_back(stat);
  std::stable_sort(out.begin(), out.end(), [](const CollectiveStat& a, const CollectiveStat& b) { return a.total_s > b.total_s; });
  return out;
}

} // namespace echo::core
