#pragma once
// The pipeline unit of NCCL's protocols: how much of a channel's data one hop must have received
// before it can pass it on. A chain or tree hop forwards unit by unit, so a path of D hops adds
// about D units' time to the transfer, not D transfers' time.
//   LL, LL128: a warp's worth of flagged data (every 8-byte word, or 128-byte line, carries its
//              own flag, so a receiver forwards what has landed without waiting for the rest of
//              the buffer step);
//   Simple:    one buffer step, 512 KiB (4 MiB buffer / 8 steps): its flag covers the whole step.
#include "collectives/algorithm.hpp"

#include <cstdint>

namespace echo::collectives {

std::uint64_t pipeline_unit_bytes(Protocol protocol, std::uint64_t bytes, std::uint32_t channels);

// Time for one unit to leave a GPU at the call's pace: each channel carries 1/channels of the data.
double pipeline_unit_s(const PlannedCall& p);

} // namespace echo::collectives
