#pragma once
// CollectiveModel: how NCCL would run one call on this platform, and what it costs.
//   1. Read the communicator's shape (nodes, GPUs per node, links) from the platform.
//   2. Choose (algorithm, protocol) as NCCL does: its own estimate for every pair NCCL_ALGO /
//      NCCL_PROTO allow, the fastest wins; then the channels NCCL launches for that size.
//      A researcher's algorithm is used where the algorithm list names it.
//   3. Cost the choice with the calibrated physics: per-hop latencies, the bandwidth the channels
//      really get, the protocol's limits — the StepCosts the algorithm's schedule is built from.
// NCCL's estimate decides; the calibrated model predicts.
#include "collectives/algorithm.hpp"
#include "collectives/calibration.hpp"
#include "collectives/nccl_selection.hpp"
#include "collectives/nccl_tuner.hpp"

#include <string>

namespace echo::collectives {

struct Plan {
  const Algorithm* algorithm = nullptr;
  std::string algorithm_name;
  Protocol protocol = Protocol::simple;
  std::uint32_t channels = 1;
  double nccl_estimate_us = 0.0;  // NCCL's own figure for the choice (0 for non-NCCL algorithms)
  CommShape shape;
  std::vector<std::uint32_t> node_of_member;
  StepCosts costs;

  // "Ring/LL128/12": what nccl-tests headers and reports show.
  std::string describe() const;
};

class CollectiveModel {
public:
  // `engine_shares_group_exits`: the network model that runs the schedules shares the links out of
  // a group of nodes itself (network::NetworkModelInfo::shares_group_exits).
  CollectiveModel(const platforms::RouteOracle& platform, const AlgorithmRegistry& algorithms, NcclSelection selection,
                  Calibration calibration, bool engine_shares_group_exits = false);

  // Throws UserError when nothing allowed can run the call, saying why each candidate cannot.
  Plan plan(const CollectiveCall& call) const;
  Schedule build(const Plan& plan, const CollectiveCall& call) const;
  // nullopt when the algorithm has no closed form (core then times its schedule once).
  std::optional<double> closed_form_s(const Plan& plan, const CollectiveCall& call) const;
  std::uint64_t step_count(const Plan& plan, const CollectiveCall& call) const;
  // Member `self`'s share of build()'s schedule, made alone, where the algorithm can
  // (Algorithm::build_for_member); nullopt otherwise.
  std::optional<Schedule> build_for_member(const Plan& plan, const CollectiveCall& call, std::uint32_t self) const;

  const NcclSelection& selection() const { return selection_; }
  const Calibration& calibration() const { return calibration_; }

private:
  StepCosts costs_for(const NcclTuner& tuner, Op op, NcclAlgo algo, Protocol proto, std::uint32_t channels,
                      std::uint64_t bytes) const;
  StepCosts point_to_point_costs(const CommShape& shape) const;
  // The CTAs a collective call runs per NIC it leaves through (for `nccl.coll_channel_bw.net`).
  double ctas_per_nic(const NcclTuner& tuner, NcclAlgo algo, std::uint32_t channels, std::uint32_t nics_used) const;
  // Holds send/recv and AllToAll to what their p2p channels carry; `shape` is the communicator's.
  void limit_to_p2p_channels(StepCosts& costs, const CollectiveCall& call, const CommShape& shape) const;

  const platforms::RouteOracle& platform_;
  const AlgorithmRegistry& algorithms_;
  NcclSelection selection_;
  Calibration calibration_;
  bool engine_shares_group_exits_;
};

} // namespace echo::collectives
