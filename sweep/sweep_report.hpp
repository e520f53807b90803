#pragma once
// sweep.html: one self-contained page for a sweep — throughput against peak memory per GPU for
// every simulated point, the Pareto front (no other point is both faster and lighter) drawn and
// listed, and the counts of points that were invalid, did not fit or failed.
#include "sweep/sweep_runner.hpp"

#include <ostream>
#include <vector>

namespace echo::sweep {

void write_sweep_report(std::ostream& out, const std::vector<SweepRecord>& records);
// Indices into `records` of the Pareto-optimal simulated points (tokens/s up, memory down),
// lightest first.
std::vector<std::size_t> pareto_front(const std::vector<SweepRecord>& records);

} // namespace echo::sweep
