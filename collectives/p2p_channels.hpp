#pragma once
// How many channels NCCL gives a send/recv to one peer, found the way NCCL finds them
// (src/graph/paths.cc, ncclTopoComputeP2pChannels; src/enqueue.cc, addP2pToPlan). A channel is
// one CTA and one proxy connection: what it moves is a property of the machine (calibration's
// `nccl.p2p_channel_bw.KIND`), so a send/recv goes as fast as its channels, or its link, allow.
// Collectives spread over every channel of the communicator; a send/recv gets only a few:
//   - per peer across nodes: 2 up to NCCL 2.19 (NCCL_NCHANNELS_PER_NET_PEER); 2.20-2.28 the same
//     2, halved on very large communicators, at least one per NIC the GPU needs; from 2.29 enough
//     for the GPU's NICs at 14 GB/s a channel (NCCL_P2P_PER_CHANNEL_NET_BW), halved until every
//     peer fits in one round of the communicator's p2p channels (8 peers per channel);
//   - per peer inside a node: two per NVLink between the GPUs (two over PCIe); on a communicator
//     that spans nodes every peer gets the fewest any peer gets;
//   - per call: fewer for small messages (a part per channel of at least half a chunk).
#include "collectives/comm_shape.hpp"
#include "collectives/cta_limits.hpp"
#include "collectives/nccl_version.hpp"

#include <cstdint>

namespace echo::collectives {

// The communicator's channels (comm->nChannels): the ring graph's, doubled as NCCL's set-up does,
// then held within NCCL_MIN_CTAS / NCCL_MAX_CTAS.
std::uint32_t comm_channels(const CommShape& shape, const CtaLimits& limits = {});
// The channels NCCL sets aside for send/recv (comm->p2pnChannels): the above, to a power of two.
std::uint32_t p2p_channels(const CommShape& shape, const CtaLimits& limits = {});
// comm->p2pnChannelsPerPeer.
std::uint32_t p2p_channels_per_peer(const CommShape& shape, NcclVersion version, const CtaLimits& limits = {});
// The channels one send (or recv) of `bytes` to one peer runs on.
std::uint32_t p2p_channels_for(std::uint64_t bytes, const CommShape& shape, NcclVersion version,
                               const CtaLimits& limits = {});

} // namespace echo::collectives
