#pragma once
// The pipeline unit of NCCL's protocols: how much of a channel's data one hop forwards at a time
// (calcCollChunking in NCCL's enqueue.cc). A chain or tree hop can pass data on once one unit has
// arrived, so a path of D hops adds about D units' time to the transfer, not D transfers' time.
//   Simple: one buffer step, 512 KiB (4 MiB buffer / 8 steps)
//   LL:     one warp's lines, 32 x 8 data bytes (every word carries its own flag, so data moves
//           on as it lands, not a 32 KiB chunk at a time)
//   LL128:  15/16 of a 600 KiB step, smaller for trees when the call is short (NCCL halves it
//           while the call would not fill the tree's pipeline)
#include "collectives/algorithm.hpp"

#include <cstdint>

namespace echo::collectives {

std::uint64_t pipeline_unit_bytes(Protocol protocol, bool tree, const CommShape& shape, std::uint64_t bytes,
                                  std::uint32_t channels);

// Time for one unit to leave a GPU at the call's pace: each channel carries 1/channels of the data.
double pipeline_unit_s(const PlannedCall& p, bool tree);

} // namespace echo::collectives
