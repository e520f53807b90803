#pragma once
// Rank folding: ranks whose timelines are bound to be equal are simulated once; the others mirror
// their representative, reaching every call of a folded slot exactly when it does, with its
// breakdown.
//
// `tp` folds the workload's symmetric slot (a generated job's `tp`) only where nothing can
// tell the siblings apart: each symmetric communicator lies inside one node, the NICs its members
// leave through carry only them, as many on each (owns_its_nics: one GPU a NIC, or two siblings a
// NIC on Polaris or a DGX A100 with 4 NICs, where the representative's calls on the shared NIC are
// booked as copies for its NIC-mate: core/folded_link_copies.hpp), and no communicator of another
// slot has two members on one node (so all other traffic crosses nodes on the siblings' own NICs,
// and the symmetric slot alone uses the node's GPU-to-GPU links). Every member then has the same
// timeline as its representative (tested against the unfolded run; the report draws it so:
// core/mirrored_interval.hpp). Never on a network model whose steps load shared switches (`flow`):
// there the siblings' rings meet.
//
// `all` folds every slot whose communicators join ranks running the same program (a generated
// job's TP, data-parallel and expert-parallel siblings), provided every other communicator maps
// member by member onto its representative's. Its calls run their schedules on the links with
// every mirrored member arriving with its representative (the symmetric slot's, as in `tp`, in
// closed form): they meet the simulated ranks' traffic on the links, not the folded replicas'
// own. (Under a GPU speed spread the replicas keep one pace, their stage's slowest:
// core/gpu_speed_spread.hpp.) A call every member of which mirrors one simulated rank, on distinct
// nodes (or all on one node, each with its own GPU link and NIC), runs only that member's steps
// where its schedule is rotation-symmetric (CallMatcher, collectives/member_projection.hpp).
//
// `exact`, the default, is `all` where that gives the unfolded run's figures — on the analytic
// fidelity always; on the steps fidelity where the calls joining replicas are timed by one
// member's steps and the replicas' left-out traffic meets no link whose steps the run times one
// by one (core/exact_replica_folding.hpp: GPT-3 175B with TP 8 inside each node, for one; or TP 4
// beside context-parallel pairs inside 8-GPU nodes with a NIC a GPU, where `tp` folds nothing) —
// and `tp` elsewhere. Tested against `none` on every example and a grid of small jobs.
#include "core/network/network_model.hpp"
#include "platforms/cluster.hpp"
#include "workloads/workload.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace echo::core {

// Which interchangeable ranks are simulated once (core/rank_folding.hpp).
//  none:  every rank.
//  tp:    TP siblings, where nothing can tell them apart (the same results as `none`).
//  exact: TP siblings as `tp`, and data- and expert-parallel replicas where folding them gives the
//         same results as `none` too (core/exact_replica_folding.hpp); else as `tp`. The default.
//  all:   every rank whose program and calls mirror another's (TP, data-parallel and expert-parallel
//         siblings); the calls joining them meet only the simulated ranks' traffic on the links,
//         not the folded replicas' own. For sweeps that rank layouts.
enum class RankFolding { none, tp, exact, all };
const char* rank_folding_name(RankFolding f);
std::optional<RankFolding> parse_rank_folding(const std::string& word);

struct FoldedRanks {
  std::vector<std::uint32_t> representative;  // per rank (r itself when simulated); empty: nothing folds
  std::vector<bool> folded_slots;             // per slot of the workload
  // Per slot: its calls are timed in closed form (the exact kind: nothing else on their links).
  // The other folded slots' calls run their schedules on the links as any call does, every
  // mirrored member arriving with its representative.
  std::vector<bool> closed_form_slots;
  // Per communicator with a simulated member: the links its calls stand on for mirrored ranks'
  // calls too (core/folded_link_copies.hpp); empty where none.
  std::vector<network::LinkCopies> link_copies;
  bool empty() const { return representative.empty(); }
  bool folds(std::uint32_t slot) const { return !empty() && slot < folded_slots.size() && folded_slots[slot]; }
  bool closed_form(std::uint32_t slot) const { return !empty() && slot < closed_form_slots.size() && closed_form_slots[slot]; }
  std::uint32_t simulated_ranks() const;
};

// What `exact` folding asks of the network model and the plans to fold replicas as well as TP
// siblings (core/exact_replica_folding.hpp).
struct ReplicaFoldingProbe {
  bool runs_steps = true;          // NetworkModelInfo::runs_steps
  bool sender_links_only = false;  // NetworkModelInfo::sender_links_only
  // Whether every call simulated rank `rank` makes on communicator `comm` is timed by one member's
  // steps on behalf of all (CallPlans::mirrored has a projection for it). Unset: never.
  std::function<bool(std::uint32_t rank, std::uint32_t comm)> projects_every_call;
};

FoldedRanks fold_ranks(const workloads::Workload& w, const platforms::Cluster& cluster, RankFolding mode,
                       const ReplicaFoldingProbe& probe);

// The communicator whose calls communicator `comm` mirrors: its slot's communicator of the first
// member's representative, where it has as many members; -1 where there is none.
std::int32_t image_communicator(const workloads::Workload& w, const FoldedRanks& folded, std::uint32_t comm);

} // namespace echo::core
