#pragma once
// Hierarchical AllReduce: a ring ReduceScatter inside each node, then, for each local GPU's slice,
// a ring AllReduce across the nodes on that GPU's rail (all rails at once), then a ring AllGather
// inside each node. Not one of NCCL's algorithms (NCCL's NVLSTree and CollNet are its
// hierarchical forms); offered for what-if studies, used where an algorithm list names it
// ("ring;allreduce:Hierarchical"). Steps cost their bytes at one GPU's bandwidth over the hop's
// kind of link (StepCosts::link_Bps) plus the hop's latency; phases follow one another per member.
#include "collectives/algorithm.hpp"

namespace echo::collectives {

class HierarchicalAllReduce final : public Algorithm {
public:
  std::string name() const override { return "Hierarchical"; }
  bool builds_from_shape() const override { return true; }
  std::string unsupported(const CollectiveCall& call, const CommShape& shape) const override;
  Schedule build(const PlannedCall& call) const override;
};

} // namespace echo::collectives
