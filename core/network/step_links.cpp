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
  // Per node, whether a NIC the call uses there also carries GPUs that are not the call's.
  std::map<std::uint32_t, bool> shared_outside;
  for (const auto& [node, on_nic] : links.gpu_on_nic) {
    std::map<std::uint32_t, std::uint32_t> members_on_nic, gpus_on_nic;
    for (std::uint32_t gpu : gpus)
      if (platform.node_of(gpu) == node)
        ++members_on_nic[platform.nic_of(gpu)];
    const platforms::NodeNetwork net = platform.node_network(node);
    for (std::uint32_t nic : net.nic_of_local)
      ++gpus_on_nic[nic];
    bool shared = false;
    for (const auto& [nic, members] : members_on_nic)
      shared = shared || gpus_on_nic[nic] > members;
    shared_outside[node] = shared;
  }
  for (const collectives::Step& st : schedule.steps()) {
    links.begin.push_back(static_cast<std::uint32_t>(links.ids.size()));
    const std::uint32_t from = gpus[st.member], to = gpus[st.peer];
    const std::uint32_t node = platform.node_of(from);
    const bool across = node != platform.node_of(to);
    links.nic_shared_outside.push_back(across && shared_outside[node]);
    if (!across)
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
