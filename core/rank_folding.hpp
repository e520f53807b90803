#pragma once
// Rank folding: when the members of each communicator of the workload's symmetric slot (a
// generated job's `tp`) are interchangeable, only one member per communicator — its representative
// — is simulated; the others mirror it. A mirrored member reaches every call of that slot exactly
// when its representative does, and its breakdown is its representative's.
//
// Folding must not change any result, so it happens only when the siblings' other traffic cannot
// meet: each symmetric communicator lies inside one node, its members use distinct NICs, and no
// communicator of another slot has two members on one node (so all other traffic crosses nodes,
// on the siblings' own NICs, and the symmetric slot alone uses the node's GPU-to-GPU links).
// Every member then has the same timeline as its representative (tested against the unfolded run).
#include "platforms/cluster.hpp"
#include "workloads/workload.hpp"

#include <cstdint>
#include <vector>

namespace echo::core {

// representative[r] for every rank (r itself when it is simulated); empty when nothing folds.
std::vector<std::uint32_t> fold_symmetric_ranks(const workloads::Workload& w, const platforms::Cluster& cluster);

} // namespace echo::core
