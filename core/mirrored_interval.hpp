#pragma once
// Under rank folding a mirrored rank runs nothing of its own: its timeline is its
// representative's, each interval the same task at the same times, on the mirrored rank's own
// communicator (collectives) or to its own peer (send / recv). The report draws it so, and a
// folded run's timeline reads as the unfolded run's (tested byte for byte).
#include "core/simulation_result.hpp"
#include "workloads/workload.hpp"

#include <cstdint>

namespace echo::core {

// `iv`, one of its representative's intervals, as rank `rank` ran it.
Interval mirrored_interval(Interval iv, std::uint32_t rank, const workloads::Workload& w);

} // namespace echo::core
