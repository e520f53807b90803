#pragma once
// Which ranks a timeline shows when it cannot show them all: one data-parallel replica across all
// pipeline stages when the workload names its communicator slots `dp` (and `tp`) — the ranks
// that are member 0 of their dp communicator, and, when that is more than `max_ranks`, also of
// their tp communicator, one rank per stage. Otherwise the first ranks.
#include "workloads/workload.hpp"

#include <cstdint>
#include <vector>

namespace echo::report {

std::vector<std::uint32_t> timeline_slice(const workloads::Workload& w, std::size_t max_ranks);

} // namespace echo::report
