#pragma once
// When folding replicas gives the unfolded run's figures exactly, so that the default (`exact`)
// folding may simulate one data-parallel (and expert-parallel) replica instead of every one.
//
// `all` folding (core/rank_folding.hpp) simulates one rank per group of interchangeable ranks; the
// others mirror it. Two things could make that differ from simulating every rank:
//   1. A mirrored member of a call finishes when its representative does. That holds where the
//      call is timed by one member's steps on behalf of all (a rotation-symmetric schedule whose
//      members load links of their own: every member on its own node, or TP siblings inside one
//      node on their own GPU links and NICs: collectives/member_projection.hpp) or in closed
//      form; a call whose steps run for every member may finish its members at different instants.
//   2. The mirrored ranks' own traffic (another replica's pipeline sends, a sibling's data-parallel
//      ring) is not simulated. On a network model whose steps load only their sender's links
//      (NetworkModelInfo::sender_links_only) it changes nothing where it loads no link a simulated
//      call loads; on a link a projected call loads, it does what the representative's own
//      traffic does on the representative's link at the same instants (the replicas run one
//      program at one pace), which the projected steps already meet.
// So: on a model that runs no steps (analytic) folding replicas is always exact; on a
// sender-links-only model it is exact when every simulated call of a folded slot that is not
// timed in closed form is projected, every communicator no simulated rank belongs to stays off the
// links of the simulated calls that are not projected, and one that meets a projected call's links
// is a pipeline's (or another unfolded slot's) image of a simulated one, member for member, on the
// same GPU of each node, or on a TP sibling of it with a NIC of its own (context-parallel pairs
// inside a node: each TP sibling's CP peer is the same sibling of the other TP group). Anything
// else (shared switches, the `flow` model) keeps the TP siblings' folding alone.
#include "core/rank_folding.hpp"
#include "platforms/cluster.hpp"
#include "workloads/workload.hpp"

#include <cstdint>
#include <vector>

namespace echo::core {

// The links a call on `c` can load, as core/network/step_links.cpp lays its steps out (ids as
// network::LinkLoad numbers them): each member's GPU link where another member shares its node,
// each member's NIC where the call spans nodes (a step across nodes may take any NIC the call's
// members use there), and where `exchanges` (the communicator runs an AllToAll, whose schedule
// splits the ways out of groups of nodes: Schedule::group_exits_split) the ways out of and into
// each group of nodes it spans, if more than one (only `--fold all` folds such a job:
// rank_folding.cpp). Sorted, each once.
std::vector<std::uint64_t> communicator_links(const workloads::CommunicatorDef& c, const platforms::Cluster& cluster,
                                              bool exchanges = false);

// Per communicator of `w`: whether any of its members runs an AllToAll on it.
std::vector<bool> exchanging_communicators(const workloads::Workload& w);
// Whether a communicator that runs an AllToAll spans more than one group of nodes.
bool exchanges_across_groups(const workloads::Workload& w, const platforms::Cluster& cluster);
// Whether a communicator spans two groups of nodes whose way out is narrower than their NICs (an
// oversubscribed pod's up-link, Cluster::group_exit_narrower_than_nics): every call crossing there
// shares it by its rate, whatever its algorithm.
bool communicates_across_narrow_group_exits(const workloads::Workload& w, const platforms::Cluster& cluster);

// Whether the NICs that `ranks` leave their nodes through carry only them, as many on each (GPUs
// 0-1 on NIC 0 and 2-3 on NIC 1 for a TP group of four on Polaris; one GPU a NIC on DGX H100): what
// one of them sends across nodes, each other sends alike on its own NIC, where NIC-mates count as
// copies of one another under folding (core/folded_link_copies.hpp).
bool owns_its_nics(const std::vector<std::uint32_t>& ranks, const platforms::Cluster& cluster);

// Whether each member of communicator `c` loads only links of its own with a call's steps (on a
// sender-links-only model): every member on a node of its own (its NIC, its node's GPU link), or
// every member on one node, each with its own GPU link, on NICs the members own (owns_its_nics).
// Where one member's steps then time the call for all (collectives/member_projection.hpp), the
// others' links carry what its own carries.
bool members_own_their_links(const workloads::CommunicatorDef& c, const platforms::Cluster& cluster);

// Whether `all` (fold_all's folding, its closed-form slots those of exact folding) gives every
// figure the unfolded run gives.
bool folds_exactly(const workloads::Workload& w, const platforms::Cluster& cluster, const FoldedRanks& all,
                   const ReplicaFoldingProbe& probe);

} // namespace echo::core
