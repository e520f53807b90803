#pragma once
// How many channels NCCL opens on a communicator and how fast each one goes, found the way NCCL's
// topology search finds them (src/graph/search.cc): try the per-channel speeds NCCL tries, from
// the fastest the links allow downwards, keep the one that carries the most in total, then double
// the channels of fast graphs. A ring channel crosses every GPU of a node once and leaves the node
// through one NIC, entering the next node on the same rail.
#include "collectives/comm_shape.hpp"

#include <cstdint>

namespace echo::collectives {

struct ChannelGraph {
  std::uint32_t channels = 1;
  double bw_intra_GBps = 0.0;  // per channel
  double bw_inter_GBps = 0.0;  // per channel
};

// The ring graph; NCCL gives trees the same channels.
ChannelGraph ring_graph(const CommShape& shape);
// NVLink SHARP: NCCL's default channel count for NVLS (16 on Hopper, 24 on Blackwell), the
// NVSwitch bandwidth split between them. Zero channels where NVLS cannot run.
ChannelGraph nvls_graph(const CommShape& shape);

} // namespace echo::collectives
