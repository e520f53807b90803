#include "core/exact_replica_folding.hpp"

#include "core/network/link_load.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace echo::core {

namespace {

using network::LinkLoad;

// Whether no other GPU of `gpu`'s node leaves it through `gpu`'s NIC.
bool has_own_nic(std::uint32_t gpu, const platforms::Cluster& cluster) {
  const std::uint32_t nic = cluster.nic_of(gpu);
  const std::vector<std::uint32_t>& on_node = cluster.nodes()[cluster.node_of(gpu)].gpus;
  return std::none_of(on_node.begin(), on_node.end(), [&](std::uint32_t g) { return g != gpu && cluster.nic_of(g) == nic; });
}

// `m`, which no simulated rank belongs to, is the image of a simulated communicator of its slot
// member for member, each member on the same GPU and NIC of its node as its image or a TP sibling
// of it on its own NIC: its traffic then does on its links what the image's does on the image's.
bool mirrors_a_simulated_one(const workloads::Workload& w, const platforms::Cluster& cluster, const FoldedRanks& all,
                             std::uint32_t comm) {
  const std::int32_t image = image_communicator(w, all, comm);
  if (image < 0)
    return false;
  const std::vector<std::uint32_t>& mapped = w.communicators[static_cast<std::size_t>(image)].ranks;
  const workloads::CommunicatorDef& m = w.communicators[comm];
  for (std::size_t i = 0; i < mapped.size(); ++i) {
    const std::uint32_t r = m.ranks[i], p = mapped[i];
    if (all.representative[r] != p)
      return false;
    // The same GPU of another node (a replica's image), or a TP sibling on the same node: its GPU
    // link and NIC are then its own, as its image's are (what the sibling's traffic does there,
    // its image's does on its own).
    const bool same_gpu = cluster.gpus()[r].local == cluster.gpus()[p].local && cluster.nic_of(r) == cluster.nic_of(p);
    const bool sibling = r == p || (cluster.node_of(r) == cluster.node_of(p) && has_own_nic(r, cluster) && has_own_nic(p, cluster));
    if (!same_gpu && !sibling)
      return false;
  }
  return true;
}

} // namespace

std::vector<std::uint64_t> communicator_links(const workloads::CommunicatorDef& c, const platforms::Cluster& cluster) {
  std::map<std::uint32_t, std::uint32_t> members_on_node;
  for (std::uint32_t r : c.ranks)
    ++members_on_node[cluster.node_of(r)];
  const bool across = members_on_node.size() > 1;
  std::vector<std::uint64_t> out;
  for (std::uint32_t r : c.ranks) {
    const std::uint32_t node = cluster.node_of(r);
    if (members_on_node[node] > 1)
      out.push_back(LinkLoad::intra_link(r));
    if (across)
      out.push_back(LinkLoad::nic(node, cluster.nic_of(r)));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool members_own_their_links(const workloads::CommunicatorDef& c, const platforms::Cluster& cluster) {
  std::set<std::uint32_t> nodes;
  if (std::all_of(c.ranks.begin(), c.ranks.end(), [&](std::uint32_t r) { return nodes.insert(cluster.node_of(r)).second; }))
    return true;
  return nodes.size() == 1 && std::all_of(c.ranks.begin(), c.ranks.end(), [&](std::uint32_t r) { return has_own_nic(r, cluster); });
}

bool folds_exactly(const workloads::Workload& w, const platforms::Cluster& cluster, const FoldedRanks& all,
                   const ReplicaFoldingProbe& probe) {
  if (all.empty())
    return false;
  if (!probe.runs_steps)
    return true;  // every call a barrier of its closed-form time: nothing is shared
  if (!probe.sender_links_only || !probe.projects_every_call)
    return false;
  const auto simulated = [&](std::uint32_t r) { return all.representative[r] == r; };
  enum class Load : std::uint8_t { plain = 1, projected = 2 };
  std::map<LinkLoad::LinkId, std::uint8_t> simulated_load;  // Load flags per link
  std::vector<std::uint32_t> missing;
  for (std::uint32_t c = 0; c < w.communicators.size(); ++c) {
    const workloads::CommunicatorDef& def = w.communicators[c];
    if (def.ranks.size() < 2 || all.closed_form(def.slot))
      continue;  // no traffic, or timed in closed form (nothing else on its links, rank_folding.hpp)
    const auto rep = std::find_if(def.ranks.begin(), def.ranks.end(), simulated);
    if (rep == def.ranks.end()) {
      missing.push_back(c);
      continue;
    }
    Load load = Load::plain;
    if (all.folds(def.slot)) {
      // Its mirrored members finish when the representative does only if one member's steps
      // stand for all.
      if (!members_own_their_links(def, cluster) || !probe.projects_every_call(*rep, c))
        return false;
      load = Load::projected;
    }
    for (LinkLoad::LinkId l : communicator_links(def, cluster))
      simulated_load[l] |= static_cast<std::uint8_t>(load);
  }
  for (std::uint32_t c : missing) {
    const workloads::CommunicatorDef& def = w.communicators[c];
    bool meets_projected = false;
    for (LinkLoad::LinkId l : communicator_links(def, cluster)) {
      const auto it = simulated_load.find(l);
      if (it == simulated_load.end())
        continue;
      if (it->second & static_cast<std::uint8_t>(Load::plain))
        return false;  // it would slow (or be slowed by) a call whose steps the run times one by one
      meets_projected = true;
    }
    if (meets_projected && (all.folds(def.slot) || !mirrors_a_simulated_one(w, cluster, all, c)))
      return false;
  }
  return true;
}

} // namespace echo::core
