#pragma once
// The typical slowdown of a measured kernel: what its look-alikes most often show.
//
// One launch's measured slowdown mixes two things: how sensitive the kernel is, and how busy the
// collective beside it happened to be (a call moving data, or one spinning for a late peer). A
// table without the collective's columns cannot tell them apart: the same GEMM, with the same
// metrics, measures s = 0 in one layer and s = 0.5 in the next. Training on the raw values then
// predicts a blend that fits neither. Instead, each kernel is labelled with the slowdown that puts
// the most of its look-alikes within 10% of their measured durations (the common outcome), refined
// to the mean of the look-alikes it fits, weighted by their overlapped time.
//
// Look-alikes: isolated durations within 10% of each other, every Nsight Compute metric within 5
// (percentage points; the run-to-run spread of one kernel's metrics is a point or two), and, when
// the table has them, the same collective (op, algorithm, protocol, channels equal; bytes within
// 10%; unknown matches unknown).
#include "slowdown/kernel_table.hpp"

#include <vector>

namespace echo::slowdown {

// One label per row, for rows that overlapped communication (overlap_ratio > 0); a row's own
// measurement counts among its look-alikes. Each row is compared with the rows of similar
// duration only (20,000 rows: about a second).
std::vector<double> typical_slowdowns(const std::vector<KernelRow>& rows);

} // namespace echo::slowdown
