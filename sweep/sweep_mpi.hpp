#pragma once
// A sweep spread over the ranks of an MPI job (`mpirun -np 64 echo-des sweep ...`): rank 0 hands
// out points one at a time to whichever rank asks (points differ wildly in cost, so static
// splitting would leave ranks idle), logs each result as it arrives and writes the outputs; the
// other ranks simulate — each point in a child process, so a point that fails or crashes is
// reported as failed and the sweep goes on. Results equal a single-process sweep's.
// Built when CMake finds MPI; without it, a launch under mpirun is refused.
#include "sweep/sweep_runner.hpp"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace echo::sweep {

// True when this process was started by an MPI launcher with more than one rank.
bool launched_by_mpi();
// True on MPI rank 0 (and in a process no MPI launcher started).
bool mpi_coordinator_rank();

// On rank 0: the new records (as run_sweep returns them). On the other ranks: nothing; they
// simulate until rank 0 has no more points, then return.
std::optional<std::vector<SweepRecord>> run_sweep_mpi(const std::vector<SweepJob>& jobs, const std::set<std::string>& done,
                                                      const std::string& log,
                                                      const std::function<void(const SweepRecord&)>& on_record);

} // namespace echo::sweep
