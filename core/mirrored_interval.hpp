#pragma once
// Under rank folding a mirrored rank runs nothing of its own: its timeline is its
// representative's, each interval the same task at the same times, on the mirrored rank's own
// communicator (collectives) or to its own peer (send / recv). The reports draw it so, and a
// folded run's timeline reads as the unfolded run's (tested byte for byte).
#include "core/simulation_result.hpp"
#include "workloads/workload.hpp"

#include <cstdint>
#include <vector>

namespace echo::core {

// `iv`, one of its representative's intervals, as rank `rank` ran it.
Interval mirrored_interval(Interval iv, std::uint32_t rank, const workloads::Workload& w);

// Every rank's intervals as it ran them, from a recorded result (intervals sorted by rank).
class RankIntervals {
public:
  RankIntervals(const SimulationResult& result, const workloads::Workload& w);
  // Calls visit(interval) for each of `rank`'s intervals, in the recorded order.
  template <typename Visit>
  void for_rank(std::uint32_t rank, Visit visit) const {
    const std::uint32_t ran = result_.representative.empty() ? rank : result_.representative[rank];
    for (std::size_t i = first_of_[ran]; i < first_of_[ran + 1]; ++i)
      visit(mirrored_interval(result_.intervals[i], rank, w_));
  }

private:
  const SimulationResult& result_;
  const workloads::Workload& w_;
  std::vector<std::size_t> first_of_;  // per rank (and one past the last): its first interval
};

} // namespace echo::core
