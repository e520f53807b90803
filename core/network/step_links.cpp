#include "core/network/step_links.hpp"

#include <algorithm>

namespace echo::core::network {

StepLinks step_links(const platforms::Cluster& platform, const collectives::Schedule& schedule,
                     const std::vector<std::uint32_t>& gpus) {
  StepLinks links;
  std::map<std::uint32_t, std::vector<LinkLoad::LinkId>> nics_of_node;  // the NICs the members use
  for (std::uint32_t gpu : gpus)
    links.gpu_on_nic[platform.node_of(gpu)].emplace(platform.nic_of(gpu), gpu);
  for (std::uint32_t gpu : gpus) {
    auto& nics = nics_of_node[platform.node_of(gpu)];
    const LinkLoad::LinkId id = LinkLoad::nic(platform.node_of(gpu), platform.nic_of(gpu));
    if (std::find(nics.begin(), nics.end(), id) == nics.end())
      nics.push_back(id);
  }
  for (const collectives::Step& st : schedule.steps()) {
    links.begin.push_back(static_cast<std::uint32_t>(links.ids.size()));
    const std::uint32_t from = gpus[st.member], to = gpus[st.peer];
    const std::uint32_t node = platform.node_of(from);
    if (node == platform.node_of(to))
      links.ids.push_back(LinkLoad::intra_link(from));
    else
      for (LinkLoad::LinkId id : nics_of_node[node])
        links.ids.push_back(id);
  }
  links.begin.push_back(static_cast<std::uint32_t>(links.ids.size()));
  links.distinct = links.ids;
  std::sort(links.distinct.begin(), links.distinct.end());
  links.distinct.erase(std::unique(links.distinct.begin(), links.distinct.end()), links.distinct.end());
  return links;
}

const StepLinks& StepLinksCache::of(const std::shared_ptr<const collectives::Schedule>& schedule,
                                    const std::vector<std::uint32_t>& gpus) {
  auto [it, fresh] = cache_.try_emplace(Key{schedule.get(), &gpus});
  if (fresh)
    it->second = {schedule, step_links(platform_, *schedule, gpus)};
  return it->second.second;
}

} // namespace echo::core::network
