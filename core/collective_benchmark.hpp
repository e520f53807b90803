#pragma once
// The nccl-tests experiment, simulated: n ranks (the platform's first n GPUs) run one collective
// at each size, alone on the cluster. Each call is the schedule the engine would run (same
// collective model and fidelity, same ScheduleRun), with every rank arriving at once; its time is that of
// the slowest rank. nccl-tests averages back-to-back iterations, whose period in steady state is
// set by the slowest rank, and it never overlaps two collectives. Out-of-place and in-place
// calls cost the same in this model.
#include "collectives/algorithm.hpp"
#include "collectives/op.hpp"
#include "core/job_spec.hpp"
#include "platforms/platform_loader.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace echo::core {

struct DataTypeInfo {
  std::string name;  // as nccl-tests prints it: float, half, bfloat16, ...
  std::uint32_t bytes = 4;
};
// Throws UserError (listing the known names) for an unknown type.
DataTypeInfo data_type(const std::string& name);

struct BenchmarkSpec {
  platforms::PlatformSource platform;
  collectives::Op op = collectives::Op::all_reduce;
  std::uint32_t gpus = 2;
  std::vector<std::uint64_t> sizes;  // requested bytes, as -b/-e/-f produce them
  DataTypeInfo dtype;
  std::uint32_t root = 0;
  CommunicationSpec communication;
  collectives::AlgorithmSetup algorithms;  // a program's own algorithms, added to the built-ins
};

struct BenchmarkRow {
  std::uint64_t bytes = 0;        // nccl-tests' size column: max(send, receive) bytes
  std::uint64_t count = 0;        // elements per rank parameter (nccl-tests' count column)
  double time_us = 0.0;
  std::string choice;             // algorithm/protocol/channels, e.g. "Ring/LL128/12"
};

// Runs the sweep. Throws UserError for bad specs (more GPUs than the platform has, sizes that are
// not a multiple of the element size, ...).
std::vector<BenchmarkRow> run_collective_benchmark(const BenchmarkSpec& spec);

// nccl-tests' bandwidth figures for a row (GB/s): algbw = bytes moved / time, busbw = algbw times
// the op's factor (AllReduce 2(n-1)/n; AllGather, ReduceScatter, AllToAll (n-1)/n; others 1).
double algorithm_bandwidth(collectives::Op op, const BenchmarkRow& row, std::uint32_t bytes_per_element,
                           std::uint32_t ranks, double time_us);
double bus_bandwidth_factor(collectives::Op op, std::uint32_t ranks);

} // namespace echo::core
