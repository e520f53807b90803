#include "core/folded_link_copies.hpp"

#include "core/exact_replica_folding.hpp"

#include <algorithm>
#include <map>

namespace echo::core {

std::vector<network::LinkCopies> folded_link_copies(const workloads::Workload& w, const platforms::Cluster& cluster,
                                                    const FoldedRanks& folded) {
  std::vector<network::LinkCopies> out(w.communicators.size());
  if (folded.empty())
    return out;
  std::map<std::uint32_t, std::map<std::uint64_t, std::uint32_t>> copies;  // image -> link -> copies
  std::map<std::uint32_t, std::vector<std::uint64_t>> image_links;
  const std::vector<bool> exchanges = exchanging_communicators(w);
  for (std::uint32_t c = 0; c < w.communicators.size(); ++c) {
    const workloads::CommunicatorDef& def = w.communicators[c];
    if (def.ranks.size() < 2 ||
        std::any_of(def.ranks.begin(), def.ranks.end(), [&](std::uint32_t r) { return folded.representative[r] == r; }))
      continue;
    const std::int32_t image = image_communicator(w, folded, c);
    if (image < 0)
      continue;
    const auto at = static_cast<std::uint32_t>(image);
    auto [it, fresh] = image_links.try_emplace(at);
    if (fresh)
      it->second = communicator_links(w.communicators[at], cluster, exchanges[at]);
    const std::vector<std::uint64_t>& theirs = it->second;
    for (std::uint64_t link : communicator_links(def, cluster, exchanges[c]))
      if (std::binary_search(theirs.begin(), theirs.end(), link))
        ++copies[at].try_emplace(link, 1u).first->second;
  }
  for (const auto& [image, links] : copies)
    out[image].assign(links.begin(), links.end());
  return out;
}

} // namespace echo::core
