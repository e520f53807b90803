#pragma once
// `echo-des slowdown table`: a training table for `slowdown train` from two Kineto profiles of
// one program (communication beside the computation, and not) and an Nsight Compute report of
// its kernels (workloads/overlap_table.hpp).
#include <CLI/CLI.hpp>

#include <string>

namespace echo::cli {

struct SlowdownTableOptions {
  std::string overlapped, isolated, ncu, out;
  int step = -1;
};

void add_slowdown_table_options(CLI::App& table, SlowdownTableOptions& o);
// Writes the table; returns the exit code (user errors are thrown).
int write_slowdown_table(const SlowdownTableOptions& o);

} // namespace echo::cli
