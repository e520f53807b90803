// The sweep's MPI entry points for builds without MPI: a launch under mpirun is refused rather
// than every rank running the whole sweep into the same files.
#include "sweep/sweep_mpi.hpp"

#include "base/user_error.hpp"


namespace echo::sweep {

std::optional<std::vector<SweepRecord>> run_sweep_mpi(const std::vector<SweepJob>&, const std::set<std::string>&,
                                                      const std::string&, const std::function<void(const SweepRecord&)>&) {
  throw UserError("", 0, "this echo-des was built without MPI, so it cannot spread a sweep over MPI ranks",
                  "install OpenMPI (libopenmpi-dev) and rebuild, or run the sweep in one process with -j");
}

} // namespace echo::sweep
