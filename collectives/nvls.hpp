#pragma once
// NVLink SHARP (NVLS), for nodes whose GPUs share an NVSwitch that reduces and multicasts
// (Hopper and newer). Inside a node a call goes through the switch: a member's data reaches every
// other member in one hop, reduced on the way (multimem loads) or replicated (multimem stores).
//   NVLS (one node):   AllReduce = reduce-scatter hop + all-gather hop; AllGather and
//                      ReduceScatter = one hop.
//   NVLSTree (nodes):  AllReduce = reduce-scatter hop in the node, then for each local GPU's
//                      slice a binary tree across the nodes on that GPU's rail (up, then down),
//                      then an all-gather hop in the node.
// Every hop streams on NCCL's NVLS chunks (128 KiB per channel) as they arrive, so a call takes
// base + B / bandwidth + its hops' latencies + a chunk per hop after the first. NCCL counts one
// NVLS latency for a call's switch traffic; the two switch hops of an AllReduce share it.
#include "collectives/algorithm.hpp"

namespace echo::collectives {

class NvlsAlgorithm final : public Algorithm {
public:
  explicit NvlsAlgorithm(bool tree) : tree_(tree) {}
  std::string name() const override { return tree_ ? "NVLSTree" : "NVLS"; }
  bool builds_from_shape() const override { return true; }
  std::string unsupported(const CollectiveCall& call, const CommShape& shape) const override;
  Schedule build(const PlannedCall& call) const override;
  std::optional<double> closed_form_s(const PlannedCall& call) const override;

private:
  bool tree_;
};

} // namespace echo::collectives
