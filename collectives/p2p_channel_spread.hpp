#pragma once
// Which of the communicator's p2p channels an AllToAll's sends to other nodes land on, as NCCL
// assigns them, and so how many channels' worth of bandwidth the call really gets. Each send is
// cut into parts, one per channel, and the part's channel follows from the send's place in NCCL's
// p2p schedule, differently by release:
//   - up to 2.21 (src/include/channel.h, ncclChannelComputeBase): base = node delta + local step / 8,
//     channel = (mirror(base) + part) mod P, mirror reversing log2 P bits (paths.cc's p2pChannels);
//   - 2.22-2.27 (ncclP2pChannelBaseForRound): base = node round x ceil(ppn / 8) + local step / 8,
//     channel = (base + mirror(part)) mod P;
//   - 2.28: channel = (mirror(base) + part) mod P, the same base;
//   - 2.29 (init.cc, ncclP2pSchedule): as 2.28, but rounds go by groups of
//     NCCL_P2P_SCHEDULE_GROUP_SIZE (8) GPUs, fewer where a node's GPUs are not a multiple of 8.
// A channel is one CTA and one proxy connection moving what one channel can (calibration's
// `nccl.p2p_channel_bw.net`): when its parts do not spread evenly, the busiest channels finish
// last. With one GPU per node on 10 nodes, 2 parts per peer and 4 channels, the channels carry 4,
// 4, 5 and 5 parts: the call moves 18 / 5 = 3.6 channels' worth, not 4.
#include "collectives/comm_shape.hpp"
#include "collectives/nccl_version.hpp"

#include <cstdint>

namespace echo::collectives {

// Parts sent to other nodes over the parts the busiest channel carries (at most `p2p_channels`),
// for the member whose channels are least even. `parts_per_peer` and `p2p_channels` as
// p2p_channels.hpp finds them. 0 when the communicator is on one node.
double all_to_all_network_channels(const CommShape& shape, std::uint32_t parts_per_peer, std::uint32_t p2p_channels,
                                   NcclVersion version);

} // namespace echo::collectives
