#include "core/network/step_links.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace echo::core::network {

StepLinks step_links(const platforms::Cluster& platform, const collectives::Schedule& schedule,
                     const std::vector<std::uint32_t>& gpus) {
  StepLinks links;
  std::map<std::uint32_t, std::vector<std::uint32_t>> nics_of_node;  // the NICs the members use, in order of first use
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> members_on_nic;  // (node, NIC) -> members
  std::vector<std::uint32_t> member_nic;  // per member, the NIC it leaves its node through
  member_nic.reserve(gpus.size());
  for (std::uint32_t gpu : gpus) {
    const std::uint32_t node = platform.node_of(gpu), nic = platform.nic_of(gpu);
    member_nic.push_back(nic);
    links.gpu_on_nic[node].emplace(nic, gpu);
    auto& nics = nics_of_node[node];
    if (std::find(nics.begin(), nics.end(), nic) == nics.end())
      nics.push_back(nic);
    ++members_on_nic[{node, nic}];
  }
  // Per node, whether a NIC the call uses there also carries GPUs that are not the call's, and
  // one NIC's rate.
  struct NodeNics {
    bool shared_outside = false;
    double nic_Bps = 0.0;
  };
  std::map<std::uint32_t, NodeNics> node_nics;
  for (const auto& [node, nics] : nics_of_node) {
    const platforms::NodeNetwork net = platform.node_network(node);
    NodeNics& n = node_nics[node];
    n.nic_Bps = net.nic_Bps;
    for (std::uint32_t nic : nics)
      n.shared_outside = n.shared_outside ||
                         static_cast<std::uint32_t>(std::count(net.nic_of_local.begin(), net.nic_of_local.end(), nic)) >
                             members_on_nic[{node, nic}];
  }
  std::vector<std::uint32_t> rails;
  // How many steps from a member to a peer on another node came before: a member's concurrent
  // sends to one peer (a double binary tree's two trees, each half the bytes on its own
  // channels) leave on different rails, as NCCL's channels spread over the NICs.
  std::unordered_map<std::uint64_t, std::uint32_t> sends_to_peer;
  for (const collectives::Step& st : schedule.steps()) {
    links.begin.push_back(static_cast<std::uint32_t>(links.ids.size()));
    const std::uint32_t from = gpus[st.member], to = gpus[st.peer];
    const std::uint32_t node = platform.node_of(from);
    const bool across = node != platform.node_of(to);
    const NodeNics& here = node_nics[node];
    links.nic_shared_outside.push_back(across && here.shared_outside);
    if (!across) {
      links.ids.push_back(LinkLoad::intra_link(from));
      continue;
    }
    // As many of the call's NICs on the node as the step's time needs (its bytes at one NIC's
    // rate over its serialization), the sender's own first: a ring step carries every channel of
    // the call, spread over all of them; a pairwise send (AllToAll, send/recv) runs at one GPU's
    // share, on its own NIC.
    rails = nics_of_node[node];
    std::rotate(rails.begin(), std::find(rails.begin(), rails.end(), member_nic[st.member]), rails.end());
    std::size_t needed = rails.size();
    if (here.nic_Bps > 0 && st.serialize_s > 0)
      needed = static_cast<std::size_t>(std::clamp(
          std::ceil(static_cast<double>(st.bytes) / (st.serialize_s * here.nic_Bps) - 1e-9), 1.0, static_cast<double>(rails.size())));
    const std::uint32_t earlier = sends_to_peer[std::uint64_t{st.member} * schedule.members() + st.peer]++;
    std::rotate(rails.begin(), rails.begin() + static_cast<std::ptrdiff_t>((earlier * needed) % rails.size()), rails.end());
    rails.resize(needed);
    for (std::uint32_t nic : rails)
      links.ids.push_back(LinkLoad::nic(node, nic));
    const std::uint32_t group = platform.group_of(node), peer_group = platform.group_of(platform.node_of(to));
    if (group == peer_group)
      continue;
    const double exit_Bps = platform.route(from, to).group_exit_Bps;
    // An AllToAll's steps split the ways out already and always name them; any other schedule's
    // where they are narrower than the pods' NICs (oversubscribed): a ring or tree leaving a pod
    // crosses on few channels, and only many of them at once can fill a way as wide as the NICs.
    if (exit_Bps <= 0 || !(schedule.group_exits_split() || platform.group_exit_narrower_than_nics(group, exit_Bps) ||
                           platform.group_exit_narrower_than_nics(peer_group, exit_Bps)))
      continue;
    for (const LinkLoad::LinkId id : {LinkLoad::group_link(group, false), LinkLoad::group_link(peer_group, true)}) {
      links.ids.push_back(id);
      if (std::none_of(links.group_capacity.begin(), links.group_capacity.end(), [&](const auto& c) { return c.first == id; }))
        links.group_capacity.emplace_back(id, exit_Bps);
    }
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
