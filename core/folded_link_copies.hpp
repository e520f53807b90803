#pragma once
// Which links a folded run's calls stand on for more than themselves. Under rank folding a
// mirrored rank's own calls are not simulated: where they would load a link no simulated call
// loads, they are left out (`--fold all`'s approximation), but where two GPUs of a node leave it
// through one NIC and one of them is simulated, the other's call is the simulated one's image on
// that same NIC, at the same instants (the two run one program at one pace). Counting it there as
// a copy of the simulated call keeps the NIC as busy as in the unfolded run: on Polaris (two GPUs
// a NIC) `--fold all` was 9-27% fast without it.
//
// A communicator none of whose members is simulated adds a copy, on every link it shares with
// its image (image_communicator), to the image's calls there.
#include "core/rank_folding.hpp"
#include "platforms/cluster.hpp"
#include "workloads/workload.hpp"

#include <vector>

namespace echo::core {

// Per communicator of `w`: its calls' links with copies > 1 (empty where none, and for all when
// nothing folds).
std::vector<network::LinkCopies> folded_link_copies(const workloads::Workload& w, const platforms::Cluster& cluster,
                                                    const FoldedRanks& folded);

} // namespace echo::core
