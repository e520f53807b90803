#include "core/rank_folding.hpp"

#include "core/exact_replica_folding.hpp"
#include "core/folded_link_copies.hpp"

#include <algorithm>
#include <numeric>
#include <set>

namespace echo::core {

namespace {

// The workload's symmetric slot, folded where nothing can tell its members apart.
FoldedRanks fold_exact(const workloads::Workload& w, const platforms::Cluster& cluster) {
  if (w.symmetric_slot.empty())
    return {};
  const auto slot_it = std::find(w.slots.begin(), w.slots.end(), w.symmetric_slot);
  if (slot_it == w.slots.end())
    return {};
  const auto slot = static_cast<std::uint32_t>(slot_it - w.slots.begin());
  for (const workloads::CommunicatorDef& c : w.communicators) {
    if (c.slot == slot) {
      for (std::uint32_t r : c.ranks)
        if (cluster.node_of(r) != cluster.node_of(c.ranks.front()) || w.program_of_rank[r] != w.program_of_rank[c.ranks.front()])
          return {};
      // A sibling's traffic across nodes leaves on a NIC of its group's own, or on its
      // representative's as a copy of the representative's (core/folded_link_copies.hpp).
      if (!owns_its_nics(c.ranks, cluster))
        return {};
    } else {
      std::set<std::uint32_t> nodes;
      for (std::uint32_t r : c.ranks)
        if (!nodes.insert(cluster.node_of(r)).second)
          return {};
    }
  }
  FoldedRanks f;
  f.representative.resize(w.rank_count());
  std::iota(f.representative.begin(), f.representative.end(), 0u);
  for (const workloads::CommunicatorDef& c : w.communicators)
    if (c.slot == slot)
      for (std::uint32_t r : c.ranks)
        f.representative[r] = c.ranks.front();
  f.folded_slots.assign(w.slots.size(), false);
  f.folded_slots[slot] = true;
  f.closed_form_slots = f.folded_slots;
  return f;
}

// Slots whose every communicator joins ranks of one program and carries no point-to-point
// transfer (a mirrored rank would never send).
std::vector<bool> interchangeable_slots(const workloads::Workload& w) {
  std::vector<bool> ok(w.slots.size(), true), used(w.slots.size(), false);
  for (const workloads::RankProgram& p : w.programs)
    for (const workloads::ProgramTask& t : p.tasks)
      if (t.kind == workloads::TaskKind::send || t.kind == workloads::TaskKind::recv)
        ok[t.slot] = false;
  for (const workloads::CommunicatorDef& c : w.communicators) {
    used[c.slot] = used[c.slot] || c.ranks.size() > 1;
    for (std::uint32_t r : c.ranks)
      if (w.program_of_rank[r] != w.program_of_rank[c.ranks.front()])
        ok[c.slot] = false;
  }
  for (std::size_t s = 0; s < ok.size(); ++s)
    ok[s] = ok[s] && used[s];
  return ok;
}

// Every rank joined to others through the interchangeable slots' communicators, folded onto the
// smallest; valid when each other communicator lands member by member on one of its own slot.
FoldedRanks fold_all(const workloads::Workload& w) {
  FoldedRanks f;
  f.folded_slots = interchangeable_slots(w);
  if (std::none_of(f.folded_slots.begin(), f.folded_slots.end(), [](bool b) { return b; }))
    return {};
  std::vector<std::uint32_t> parent(w.rank_count());
  std::iota(parent.begin(), parent.end(), 0u);
  const auto root = [&](std::uint32_t r) {
    while (parent[r] != r)
      r = parent[r] = parent[parent[r]];
    return r;
  };
  for (const workloads::CommunicatorDef& c : w.communicators)
    if (f.folded_slots[c.slot])
      for (std::uint32_t r : c.ranks) {
        const std::uint32_t a = root(r), b = root(c.ranks.front());
        parent[std::max(a, b)] = std::min(a, b);
      }
  f.representative.resize(w.rank_count());
  for (std::uint32_t r = 0; r < w.rank_count(); ++r)
    f.representative[r] = root(r);
  for (const workloads::CommunicatorDef& c : w.communicators) {
    if (f.folded_slots[c.slot])
      continue;
    const std::int32_t image = w.communicator(f.representative[c.ranks.front()], c.slot);
    if (image < 0 || w.communicators[static_cast<std::size_t>(image)].ranks.size() != c.ranks.size())
      return {};
    const std::vector<std::uint32_t>& mapped = w.communicators[static_cast<std::size_t>(image)].ranks;
    for (std::size_t m = 0; m < c.ranks.size(); ++m)
      if (f.representative[c.ranks[m]] != mapped[m])
        return {};
  }
  return f;
}

} // namespace

const char* rank_folding_name(RankFolding f) {
  switch (f) {
  case RankFolding::none: return "none";
  case RankFolding::tp: return "tp";
  case RankFolding::exact: return "exact";
  case RankFolding::all: return "all";
  }
  return "?";
}

std::optional<RankFolding> parse_rank_folding(const std::string& word) {
  for (RankFolding f : {RankFolding::none, RankFolding::tp, RankFolding::exact, RankFolding::all})
    if (word == rank_folding_name(f))
      return f;
  return std::nullopt;
}

std::uint32_t FoldedRanks::simulated_ranks() const {
  std::uint32_t n = 0;
  for (std::uint32_t r = 0; r < representative.size(); ++r)
    n += representative[r] == r;
  return n;
}

namespace {

FoldedRanks choose_folding(const workloads::Workload& w, const platforms::Cluster& cluster, RankFolding mode,
                           const ReplicaFoldingProbe& probe) {
  if (mode == RankFolding::none)
    return {};
  // A model whose steps load shared switches (flow) can tell TP siblings apart by their other
  // traffic there (by about 1e-7 of an iteration, measured): only `all` folds on it.
  if (mode != RankFolding::all && probe.runs_steps && !probe.sender_links_only)
    return {};
  // Neither where an AllToAll crosses from one group of nodes to another: the calls crossing
  // there share its way out by their rates (LinkLoad's capacity links), and a folded sibling's,
  // booked as copies of its image's, came within 0.2% of the unfolded run, not to the byte.
  if (mode != RankFolding::all && probe.runs_steps && exchanges_across_groups(w, cluster))
    return {};
  // Nor where any call crosses an oversubscribed pod's up-link: rings and trees share it there too.
  if (mode != RankFolding::all && probe.runs_steps && communicates_across_narrow_group_exits(w, cluster))
    return {};
  FoldedRanks exact = fold_exact(w, cluster);
  if (mode == RankFolding::tp)
    return exact;
  FoldedRanks all = fold_all(w);
  if (all.empty())
    return exact;
  // Only a slot exact folding would fold is timed in closed form; the replicas' calls run their
  // schedules and meet the representatives' other traffic on the links.
  all.closed_form_slots.assign(w.slots.size(), false);
  for (std::uint32_t s = 0; s < w.slots.size(); ++s)
    all.closed_form_slots[s] = exact.closed_form(s);
  if (mode == RankFolding::all || folds_exactly(w, cluster, all, probe))
    return all;
  return exact;
}

} // namespace

FoldedRanks fold_ranks(const workloads::Workload& w, const platforms::Cluster& cluster, RankFolding mode,
                       const ReplicaFoldingProbe& probe) {
  FoldedRanks folded = choose_folding(w, cluster, mode, probe);
  folded.link_copies = folded_link_copies(w, cluster, folded);
  return folded;
}

std::int32_t image_communicator(const workloads::Workload& w, const FoldedRanks& folded, std::uint32_t comm) {
  const workloads::CommunicatorDef& def = w.communicators[comm];
  const std::int32_t image = w.communicator(folded.representative[def.ranks.front()], def.slot);
  return image >= 0 && w.communicators[static_cast<std::size_t>(image)].ranks.size() == def.ranks.size() ? image : -1;
}

} // namespace echo::core
