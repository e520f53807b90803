#pragma once
// `echo-des slowdown table`: a training table for `slowdown train` from two Kineto profiles of
// one program (communication beside the computation, and not) and an Nsight Compute report of
// its kernels (workloads/overlap_table.hpp).
#include <string>

namespace echo::report {

struct SlowdownTableOptions {
  std::string overlapped, isolated, ncu, out;
  int step = -1;  // ProfilerStep#N in both traces; -1: the last
};

// Writes the table; returns the exit code (user errors are thrown).
int write_slowdown_table(const SlowdownTableOptions& o);

} // namespace echo::report
