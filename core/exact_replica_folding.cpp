#include "core/exact_replica_folding.hpp"

#include "core/network/link_load.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace echo::core {

namespace {

using network::LinkLoad;

// The GPUs of `gpu`'s node that leave it through `gpu`'s NIC, `gpu` among them.
std::vector<std::uint32_t> nic_mates(std::uint32_t gpu, const platforms::Cluster& cluster) {
  const std::uint32_t nic = cluster.nic_of(gpu);
  std::vector<std::uint32_t> out;
  for (std::uint32_t g : cluster.nodes()[cluster.node_of(gpu)].gpus)
    if (cluster.nic_of(g) == nic)
      out.push_back(g);
  return out;
}

// How many GPUs leave `gpu`'s node through its NIC, where all of them mirror `image` (that NIC
// then carries `image`'s calls and their copies alone: core/folded_link_copies.hpp); else 0.
std::size_t nic_mates_of_image(std::uint32_t gpu, std::uint32_t image, const platforms::Cluster& cluster, const FoldedRanks& all) {
  const std::vector<std::uint32_t> mates = nic_mates(gpu, cluster);
  return std::all_of(mates.begin(), mates.end(), [&](std::uint32_t g) { return all.representative[g] == image; }) ? mates.size() : 0;
}

// `m`, which no simulated rank belongs to, is the image of a simulated communicator of its slot
// member for member, each member on the same GPU and NIC of its node as its image or on a NIC
// that, like its image's, carries only the image's mirrors: its traffic then does on its links
// what the image's does on the image's.
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
    // The same GPU of another node (a replica's image), or a GPU whose NIC, like its image's,
    // carries only GPUs that mirror the image, as many on each (a TP sibling, or a replica's):
    // what its traffic does on its links, its image's does on its own (on a NIC the two share, as
    // copies of the image's calls).
    const bool same_gpu = cluster.gpus()[r].local == cluster.gpus()[p].local && cluster.nic_of(r) == cluster.nic_of(p);
    const std::size_t mates = nic_mates_of_image(r, p, cluster, all);
    const bool mirrored_nic = mates > 0 && mates == nic_mates_of_image(p, p, cluster, all);
    if (r != p && !same_gpu && !mirrored_nic)
      return false;
  }
  return true;
}

} // namespace

std::vector<std::uint64_t> communicator_links(const workloads::CommunicatorDef& c, const platforms::Cluster& cluster,
                                              bool exchanges) {
  std::map<std::uint32_t, std::uint32_t> members_on_node;
  for (std::uint32_t r : c.ranks)
    ++members_on_node[cluster.node_of(r)];
  const bool across = members_on_node.size() > 1;
  std::vector<std::uint64_t> out;
  if (exchanges) {
    std::set<std::uint32_t> groups;
    for (const auto& [node, members] : members_on_node)
      groups.insert(cluster.group_of(node));
    if (groups.size() > 1)
      for (std::uint32_t g : groups) {
        out.push_back(LinkLoad::group_link(g, false));
        out.push_back(LinkLoad::group_link(g, true));
      }
  }
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

std::vector<bool> exchanging_communicators(const workloads::Workload& w) {
  // Per program, the slots it runs an AllToAll on: programs are few, communicators many.
  std::vector<std::vector<bool>> slots_of(w.programs.size(), std::vector<bool>(w.slots.size(), false));
  for (std::size_t p = 0; p < w.programs.size(); ++p)
    for (const workloads::ProgramTask& t : w.programs[p].tasks)
      if (t.kind == workloads::TaskKind::collective && t.op == trace::ALL_TO_ALL && t.slot < w.slots.size())
        slots_of[p][t.slot] = true;
  std::vector<bool> out(w.communicators.size(), false);
  for (std::size_t c = 0; c < w.communicators.size(); ++c) {
    const workloads::CommunicatorDef& def = w.communicators[c];
    out[c] = std::any_of(def.ranks.begin(), def.ranks.end(),
                         [&](std::uint32_t r) { return slots_of[w.program_of_rank[r]][def.slot]; });
  }
  return out;
}

namespace {

// Whether a member of `def` sits in another group of nodes than its first member and `accept`s
// that pair (called with the first member, the other, and their two groups).
template <typename Accept>
bool crosses_groups(const workloads::CommunicatorDef& def, const platforms::Cluster& cluster, const Accept& accept) {
  if (def.ranks.size() < 2)
    return false;
  const std::uint32_t first = def.ranks.front();
  const std::uint32_t home = cluster.group_of(cluster.node_of(first));
  return std::any_of(def.ranks.begin(), def.ranks.end(), [&](std::uint32_t r) {
    const std::uint32_t group = cluster.group_of(cluster.node_of(r));
    return group != home && accept(first, r, home, group);
  });
}

} // namespace

bool exchanges_across_groups(const workloads::Workload& w, const platforms::Cluster& cluster) {
  const std::vector<bool> exchanges = exchanging_communicators(w);
  for (std::size_t c = 0; c < w.communicators.size(); ++c)
    if (exchanges[c] && crosses_groups(w.communicators[c], cluster, [](auto...) { return true; }))
      return true;
  return false;
}

bool communicates_across_narrow_group_exits(const workloads::Workload& w, const platforms::Cluster& cluster) {
  const auto narrow = [&](std::uint32_t first, std::uint32_t r, std::uint32_t home, std::uint32_t group) {
    const double exit_Bps = cluster.route(first, r).group_exit_Bps;
    return cluster.group_exit_narrower_than_nics(home, exit_Bps) || cluster.group_exit_narrower_than_nics(group, exit_Bps);
  };
  return std::any_of(w.communicators.begin(), w.communicators.end(),
                     [&](const workloads::CommunicatorDef& def) { return crosses_groups(def, cluster, narrow); });
}

bool owns_its_nics(const std::vector<std::uint32_t>& ranks, const platforms::Cluster& cluster) {
  std::size_t per_nic = 0;
  for (std::uint32_t r : ranks) {
    const std::vector<std::uint32_t> mates = nic_mates(r, cluster);
    if (per_nic != 0 && mates.size() != per_nic)
      return false;
    per_nic = mates.size();
    if (!std::all_of(mates.begin(), mates.end(), [&](std::uint32_t g) { return std::find(ranks.begin(), ranks.end(), g) != ranks.end(); }))
      return false;
  }
  return true;
}

bool members_own_their_links(const workloads::CommunicatorDef& c, const platforms::Cluster& cluster) {
  std::set<std::uint32_t> nodes;
  if (std::all_of(c.ranks.begin(), c.ranks.end(), [&](std::uint32_t r) { return nodes.insert(cluster.node_of(r)).second; }))
    return true;
  return nodes.size() == 1 && owns_its_nics(c.ranks, cluster);
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
  std::map<std::int32_t, std::vector<std::uint64_t>> links_of_image;  // many communicators share an image
  for (std::uint32_t c : missing) {
    const workloads::CommunicatorDef& def = w.communicators[c];
    // On a link it shares with its image it is booked as a copy of the image's calls there
    // (core/folded_link_copies.hpp): what it does there, the copies do.
    const std::int32_t image = image_communicator(w, all, c);
    auto [cached, fresh] = links_of_image.try_emplace(image);
    if (fresh && image >= 0)
      cached->second = communicator_links(w.communicators[static_cast<std::size_t>(image)], cluster);
    const std::vector<std::uint64_t>& image_links = cached->second;
    bool meets_projected = false;
    for (LinkLoad::LinkId l : communicator_links(def, cluster)) {
      if (std::binary_search(image_links.begin(), image_links.end(), l))
        continue;
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
