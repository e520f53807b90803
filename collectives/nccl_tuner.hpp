#pragma once
// NcclTuner: NCCL's own estimate of a collective's time for each (algorithm, protocol) — the
// formulas of ncclTopoTuneModel / ncclTopoGetAlgoTime with NCCL's constants — which NCCL uses to
// pick what to run. echo-des picks the same way, then times the pick with its calibrated model
// (nccl_cost.hpp): NCCL's estimate decides, the physics predicts.
#include "collectives/channel_search.hpp"
#include "collectives/comm_shape.hpp"
#include "collectives/nccl_release_tuning.hpp"
#include "collectives/nccl_version.hpp"
#include "collectives/nccl_vocabulary.hpp"
#include "collectives/op.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace echo::collectives {

// How each channel's speed is read from a graph: as NCCL's tuner reads it (the intra-node speed
// up to two nodes, the inter-node speed beyond), or as the hardware runs it (the slower of the
// two, a tree on two nodes using both directions of the NICs).
enum class SpeedReading { nccl, physical };

// Algorithm bandwidth in GB/s (time = bytes / bandwidth) of (op, algo, proto) on graph `g`, with
// NCCL's protocol and algorithm limits (LL and LL128 caps, tree efficiency, NVLS factors).
// `channel_share` scales NCCL's whole-communicator LL cap when only part of the channels run;
// `ring_ll_quarter`: the LL ring as releases up to 2.20 read it (1/4 or 1/3 of the bus, not 1/2).
double nccl_algorithm_bandwidth(const CommShape& shape, Op op, NcclAlgo algo, Protocol proto, const ChannelGraph& g,
                                SpeedReading reading, double channel_share = 1.0, bool ring_ll_quarter = false);

class NcclTuner {
public:
  // `release`: the NCCL whose tuning constants choose (nccl_release_tuning.hpp).
  explicit NcclTuner(const CommShape& shape, NcclVersion release = kNewestNccl);

  // Empty when NCCL would not run this pair for this op here; the reason says why.
  std::string unavailable(Op op, NcclAlgo algo, Protocol proto) const;
  // LL128 named by the user's protocol list (NcclSelection::protocols_given): NCCL runs it
  // wherever it is asked to, past the checks of the GPUs' and NICs' paths.
  void set_ll128_explicit(bool on) { ll128_explicit_ = on; }
  // NCCL's estimate in microseconds; nullopt when unavailable.
  std::optional<double> estimate_us(Op op, NcclAlgo algo, Protocol proto, std::uint64_t bytes) const;
  // Channels NCCL launches for this call: small calls use fewer (topoGetAlgoInfo).
  std::uint32_t channels_used(NcclAlgo algo, Protocol proto, std::uint64_t bytes) const;

  const CommShape& shape() const { return shape_; }
  const ChannelGraph& graph(NcclAlgo algo) const { return algo == NcclAlgo::nvls || algo == NcclAlgo::nvls_tree ? nvls_ : ring_; }
  // NCCL's latency in microseconds (before the per-size corrections).
  double latency_us(Op op, NcclAlgo algo, Protocol proto) const;

private:

  CommShape shape_;
  ChannelGraph ring_, nvls_;
  NcclReleaseTuning release_;
  bool ll128_explicit_ = false;
};

} // namespace echo::collectives
