#pragma once
// Nsight Compute metrics for a trace's kernels (`echo-des import ncu REPORT.csv --into trace.pb`),
// so that real traces can use the XGBoost slowdown predictor.
//
// Reads `ncu --csv` output in either layout: the details page (one row per metric: "ID",
// "Kernel Name", "Metric Name", "Metric Value", ...) or the raw page (one row per kernel, a column
// per metric, a row of units under the header). The metrics, by their details-page name or their
// raw name: Compute (SM) Throughput, Memory Throughput, DRAM Throughput, Achieved Occupancy,
// Theoretical Occupancy, L1/TEX Hit Rate, L2 Hit Rate, Grid Size, Block Size.
//
// A profiled kernel attaches to a trace's compute task by name and launch order: in each template,
// the n-th task with a kernel's name gets the n-th profiled kernel of that name. Names compare
// after dropping a leading "void ", template arguments and the parameter list, so the demangled
// names of a profile meet the short names of a trace ("at::native::elementwise_kernel").
#include "proto/trace.pb.h"

#include <cstddef>
#include <string>
#include <vector>

namespace echo::workloads {

struct ProfiledKernel {
  std::string name;
  trace::KernelMetrics metrics;
};

std::vector<ProfiledKernel> read_ncu_csv(const std::string& path);

struct NcuAttachment {
  std::size_t attached = 0;          // trace tasks that received metrics
  std::size_t unmatched_kernels = 0; // profiled kernels no task took (per template, summed)
  std::size_t tasks_without = 0;     // compute tasks still without metrics
};

NcuAttachment attach_ncu_metrics(trace::Trace& t, const std::vector<ProfiledKernel>& kernels);

// The name as matching compares it.
std::string kernel_base_name(const std::string& name);

} // namespace echo::workloads
