// Whether an MPI launcher started this process: built with or without MPI, so that a build
// without it can refuse rather than run the whole sweep on every rank.
#include "sweep/sweep_mpi.hpp"

#include <cstdlib>

namespace echo::sweep {

bool launched_by_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char* v = std::getenv(var); v != nullptr && std::atoi(v) > 1)
      return true;
  return false;
}

bool mpi_coordinator_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* v = std::getenv(var); v != nullptr)
      return std::atoi(v) == 0;
  return true;
}

} // namespace echo::sweep
