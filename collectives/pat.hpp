#pragma once
// PAT (NCCL's "parallel aggregated trees") for AllGather and ReduceScatter with one GPU per node:
// logarithmic instead of linear in the number of ranks. Modelled as Bruck's algorithm, which has
// PAT's step count and traffic: AllGather in ceil(log2 n) rounds, round k sending what a member
// holds so far (min(2^k, n - 2^k) slices of B/n) to the member 2^k before it; ReduceScatter is the
// same rounds in reverse, reducing. Each member moves (n-1)/n B in all, at the call's pace.
#include "collectives/algorithm.hpp"

namespace echo::collectives {

class PatAlgorithm final : public Algorithm {
public:
  std::string name() const override { return "PAT"; }
  bool builds_from_shape() const override { return true; }
  std::string unsupported(const CollectiveCall& call, const CommShape& shape) const override;
  Schedule build(const PlannedCall& call) const override;
  std::optional<double> closed_form_s(const PlannedCall& call) const override;
};

} // namespace echo::collectives
