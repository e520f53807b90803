#pragma once
// The features slowdown models see, by the column names of the measured data (so that a model
// trained by another tool on the same CSV columns loads here): the isolated duration in ns and
// the Nsight Compute metrics of the kernel — and, optionally, what the overlapping collective is.
//
// The collective's features are known to the engine while it runs (the NCCL plan of the call
// beside the kernel) and may be columns of a training table. A model trained with them is
// asked again whenever the collective beside a kernel changes; without them, once per kernel.
// Codes (numbers, so that XGBoost can split on them; NaN when unknown or nothing overlaps):
//   comm_op        trace.proto's CollectiveOp: 1 AllReduce, 2 AllGather, 3 ReduceScatter,
//                  4 Broadcast, 5 Reduce, 6 AllToAll; 7 a send / recv
//   comm_algorithm 0 Ring, 1 Tree, 2 CollNet (direct or chain), 3 NVLS (and NVLS tree), 4 PAT,
//                  5 any other (hierarchical, a researcher's own)
//   comm_protocol  0 LL, 1 LL128, 2 Simple
//   comm_channels  the number of NCCL channels (thread blocks) the call runs with
//   comm_bytes     the call's bytes as trace.proto counts them
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace echo::slowdown {

inline const std::vector<std::string>& feature_names() {
  static const std::vector<std::string> names = {"ground_truth",       "Compute throughput", "SM",
                                                 "Memory throughput",  "DRAM throughput",    "Achieved occupancy",
                                                 "Maximum occupancy",  "L1 hit rate",        "L2 hit rate"};
  return names;
}

inline const std::vector<std::string>& collective_feature_names() {
  static const std::vector<std::string> names = {"comm_op", "comm_algorithm", "comm_protocol", "comm_channels", "comm_bytes"};
  return names;
}

// feature_names() followed by collective_feature_names().
inline const std::vector<std::string>& extended_feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all = feature_names();
    all.insert(all.end(), collective_feature_names().begin(), collective_feature_names().end());
    return all;
  }();
  return names;
}

// The codes of comm_algorithm and comm_protocol for the words NCCL spells in its kernel names
// (RING, TREE, COLLNET_DIRECT, COLLNET_CHAIN, NVLS, NVLS_TREE, PAT; LL, LL128, SIMPLE); NaN for
// an empty or unknown word.
inline float algorithm_code(std::string_view word) {
  if (word == "RING")
    return 0;
  if (word == "TREE")
    return 1;
  if (word == "COLLNET_DIRECT" || word == "COLLNET_CHAIN")
    return 2;
  if (word == "NVLS" || word == "NVLS_TREE")
    return 3;
  if (word == "PAT")
    return 4;
  return word.empty() ? std::numeric_limits<float>::quiet_NaN() : 5;
}
inline float protocol_code(std::string_view word) {
  if (word == "LL")
    return 0;
  if (word == "LL128")
    return 1;
  if (word == "SIMPLE")
    return 2;
  return std::numeric_limits<float>::quiet_NaN();
}

} // namespace echo::slowdown
