#include "core/network/step_links.hpp"

#include <algorithm>
#include <cmath>

namespace echo::core::network {

StepLinks step_links(const platforms::Cluster& platform, const collectives::Schedule& schedule,
                     const std::vector<std::uint32_t>& gpus) {
  StepLinks links;
  std::map<std::uint32_t, std::vector<std::uint32_t>> nics_of_node;  // the NICs the members use, in order of first use
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> members_on_nic;  // (node, NIC) -> members
  for (std::uint32_t gpu : gpus) {
    const std::uint32_t node = platform.node_of(gpu), nic = platform.nic_of(gpu);
    links.gpu_on_nic[node].emplace(nic, gpu);
    auto& nics = nics_of_node[node];
    if (std::find(nics.begin(), nics.end(), nic) == nics.end())
      nics.push_back(nic);
    ++members_on_nic[{node, nic}];
  }
  // Per node, whether a NIC the call uses there also carries GPUs that are not the call's.
  std::map<std::uint32_t, bool> shared_outside;
  for (const auto& [node, nics] : nics_of_node) {
    const platforms::NodeNetwork net = platform.node_network(node);
    bool shared = false;
    for (std::uint32_t nic : nics)
      shared = shared || static_cast<std::uint32_t>(std::count(net.nic_of_local.begin(), net.nic_of_local.end(), nic)) >
                             members_on_nic[{node, nic}];
    shared_outside[node] = shared;
  }
  std::vector<std::uint32_t> rails;
  for (const collectives::Step& st : schedule.steps()) {
    links.begin.push_back(static_cast<std::uint32_t>(links.ids.size()));
    const std::uint32_t from = gpus[st.member], to = gpus[st.peer];
    const std::uint32_t node = platform.node_of(from);
    const bool across = node != platform.node_of(to);
    links.nic_shared_outside.push_back(across && shared_outside[node]);
    if (!across) {
      links.ids.push_back(LinkLoad::intra_link(from));
      continue;
    }
    // As many of the call's NICs on the node as the step's time needs (its bytes at one NIC's
    // rate over its serialization), the sender's own first: a ring step carries every channel of
    // the call, spread over all of them; a pairwise send (AllToAll, send/recv) runs at one GPU's
    // share, on its own NIC.
    rails = nics_of_node[node];
    const std::uint32_t own = platform.nic_of(from);
    std::rotate(rails.begin(), std::find(rails.begin(), rails.end(), own), rails.end());
    const double nic_Bps = platform.node_network(node).nic_Bps;
    if (nic_Bps > 0 && st.serialize_s > 0) {
      const double needed = std::ceil(static_cast<double>(st.bytes) / (st.serialize_s * nic_Bps) - 1e-9);
      rails.resize(static_cast<std::size_t>(std::clamp(needed, 1.0, static_cast<double>(rails.size()))));
    }
    for (std::uint32_t nic : rails)
      links.ids.push_back(LinkLoad::nic(node, nic));
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
