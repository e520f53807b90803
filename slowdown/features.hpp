#pragma once
// The features slowdown models see, by the column names of the measured data (so that a model
// trained by another tool on the same CSV columns loads here): the isolated duration in ns and
// the Nsight Compute metrics of the kernel.
#include <string>
#include <vector>

namespace echo::slowdown {

inline const std::vector<std::string>& feature_names() {
  static const std::vector<std::string> names = {"ground_truth",       "Compute throughput", "SM",
                                                 "Memory throughput",  "DRAM throughput",    "Achieved occupancy",
                                                 "Maximum occupancy",  "L1 hit rate",        "L2 hit rate"};
  return names;
}

} // namespace echo::slowdown
