#include "core/mirrored_interval.hpp"

#include "core/rank_runtime.hpp"

#include <algorithm>

namespace echo::core {

Interval mirrored_interval(Interval iv, std::uint32_t rank, const workloads::Workload& w) {
  if (iv.rank == rank)
    return iv;
  const workloads::ProgramTask& task = w.program(iv.rank).tasks[iv.task];
  iv.rank = rank;
  if (task.kind == workloads::TaskKind::compute)
    return iv;
  const std::int32_t comm = w.communicator(rank, task.slot);
  if (comm < 0)
    return iv;
  const auto c = static_cast<std::uint32_t>(comm);
  if (task.kind == workloads::TaskKind::collective) {
    iv.comm = c;
  } else {
    // A transfer's sequence number carries its communicator above its count.
    iv.comm = w.communicators[c].ranks[task.peer_or_root];
    iv.seq = (std::uint64_t{c} << RankRuntime::kTransferCommShift) | RankRuntime::transfer_number(iv.seq);
  }
  return iv;
}

RankIntervals::RankIntervals(const SimulationResult& result, const workloads::Workload& w)
    : result_(result), w_(w), first_of_(w.rank_count() + 1, result.intervals.size()) {
  for (std::size_t i = result.intervals.size(); i-- > 0;)
    first_of_[result.intervals[i].rank] = i;
  for (std::uint32_t r = w.rank_count(); r-- > 0;)
    first_of_[r] = std::min(first_of_[r], first_of_[r + 1]);
}

} // namespace echo::core
