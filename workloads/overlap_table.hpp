#pragma once
// Measured overlap slowdown from two profiles of the same program: one where communication ran
// beside the computation, one where it did not (a single-GPU run, or communication switched off).
// For each compute kernel of the overlapped run: its isolated duration (the same kernel, by name
// and launch order, in the isolated run), its overlapped duration, the share of it that NCCL
// kernels on other streams of the GPU covered, and the call that covered most of it — the rows
// `echo-des slowdown train` learns from (`echo-des slowdown table`).
#include "workloads/importers/kineto_reader.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace echo::workloads {

struct OverlapRow {
  std::string name;
  double isolated_ns = 0, measured_ns = 0, overlap_ratio = 0;
  // The NCCL kernel beside it for the longest time (none when overlap_ratio is 0): its op, the
  // algorithm and protocol its kernel name spells (RING, TREE, COLLNET_DIRECT, NVLS, PAT, ...;
  // LL, LL128, SIMPLE; empty when the name does not say), and its bytes.
  trace::CollectiveOp op = trace::OP_UNSPECIFIED;
  std::string algorithm, protocol;
  double bytes = 0;
};

struct OverlapTable {
  std::vector<OverlapRow> rows;  // in the overlapped run's start order
  std::size_t unmatched = 0;     // compute kernels without their isolated counterpart (left out)
};

OverlapTable overlap_table(const std::vector<MeasuredKernel>& overlapped, const std::vector<MeasuredKernel>& isolated);

} // namespace echo::workloads
