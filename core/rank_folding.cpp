#include "core/rank_folding.hpp"

#include <algorithm>
#include <set>

namespace echo::core {

std::vector<std::uint32_t> fold_symmetric_ranks(const workloads::Workload& w, const platforms::Cluster& cluster) {
  if (w.symmetric_slot.empty())
    return {};
  const auto slot_it = std::find(w.slots.begin(), w.slots.end(), w.symmetric_slot);
  if (slot_it == w.slots.end())
    return {};
  const auto slot = static_cast<std::uint32_t>(slot_it - w.slots.begin());
  for (const workloads::CommunicatorDef& c : w.communicators) {
    if (c.slot == slot) {
      std::set<std::uint32_t> nics;
      for (std::uint32_t r : c.ranks) {
        if (cluster.node_of(r) != cluster.node_of(c.ranks.front()) || w.program_of_rank[r] != w.program_of_rank[c.ranks.front()])
          return {};
        if (!nics.insert(cluster.nic_of(r)).second)
          return {};
      }
    } else {
      std::set<std::uint32_t> nodes;
      for (std::uint32_t r : c.ranks)
        if (!nodes.insert(cluster.node_of(r)).second)
          return {};
    }
  }
  std::vector<std::uint32_t> representative(w.rank_count());
  for (std::uint32_t r = 0; r < w.rank_count(); ++r)
    representative[r] = r;
  for (const workloads::CommunicatorDef& c : w.communicators)
    if (c.slot == slot)
      for (std::uint32_t r : c.ranks)
        representative[r] = c.ranks.front();
  return representative;
}

} // namespace echo::core
