#pragma once
// The critical path of a simulated iteration: the chain of intervals the iteration's end waited
// for. The engine starts every task as soon as what it waits for is done, so walking back from
// the interval that ends last, each step goes to the predecessor that ended last before it
// started — the previous task on its stream or a task of another stream it waits for — and a
// collective that waited for a late member jumps to that member (the straggler). The walk is
// exact for this as-soon-as-possible schedule; no graph search is needed.
#include "core/simulation_result.hpp"
#include "workloads/workload.hpp"

#include <string>
#include <vector>

namespace echo::core {

// Needs the recorded intervals (result.intervals); empty without them. In time order.
std::vector<CriticalSegment> critical_path(const SimulationResult& result, const workloads::Workload& workload);

// What the path is made of: its time per task (name and kind), largest first, at most `limit`.
struct CriticalContribution {
  std::string name, kind;
  double duration_s = 0.0;
};
std::vector<CriticalContribution> critical_path_top(const std::vector<CriticalSegment>& path, std::size_t limit);

} // namespace echo::core
