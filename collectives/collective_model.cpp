#include "collectives/collective_model.hpp"

#include "base/user_error.hpp"
#include "collectives/nccl_constants.hpp"
#include "collectives/nccl_tuner.hpp"
#include "collectives/p2p_channel_spread.hpp"
#include "collectives/p2p_channels.hpp"

#include <algorithm>
#include <limits>

namespace echo::collectives {

using platforms::LinkKind;

namespace {

int hw_of(LinkKind kind) {
  switch (kind) {
  case LinkKind::nvlink: return nccl::kNvlink;
  case LinkKind::pcie: return nccl::kPci;
  default: return nccl::kNet;
  }
}

std::vector<std::uint32_t> nodes_of(const CollectiveCall& call, const platforms::RouteOracle& platform) {
  std::vector<std::uint32_t> nodes(call.gpus.size());
  for (std::size_t m = 0; m < call.gpus.size(); ++m)
    nodes[m] = platform.node_of(call.gpus[m]);
  return nodes;
}

} // namespace

std::string Plan::describe() const {
  return algorithm_name + "/" + std::string(to_string(protocol)) + "/" + std::to_string(channels);
}

CollectiveModel::CollectiveModel(const platforms::RouteOracle& platform, const AlgorithmRegistry& algorithms,
                                 NcclSelection selection, Calibration calibration, bool engine_shares_group_exits)
    : platform_(platform), algorithms_(algorithms), selection_(std::move(selection)), calibration_(calibration),
      engine_shares_group_exits_(engine_shares_group_exits) {}

StepCosts CollectiveModel::point_to_point_costs(const CommShape& shape) const {
  StepCosts c;
  c.split_group_exits = !engine_shares_group_exits_;
  const auto ring = nccl::index(NcclAlgo::ring), simple = nccl::index(Protocol::simple);
  c.base_s = std::max(0.0, nccl::kBaseLatency[ring][simple] + calibration_.extra_base(Protocol::simple)) * 1e-6;
  for (LinkKind k : {LinkKind::nvlink, LinkKind::pcie, LinkKind::network}) {
    const auto i = static_cast<int>(k);
    c.hop_s[i] = std::max(0.0, nccl::kHwLatency[hw_of(k)][ring][simple] + calibration_.extra_hop(k)) * 1e-6;
    c.efficiency[i] = calibration_.link_efficiency(k);
  }
  c.link_Bps[static_cast<int>(shape.intra)] = shape.intra_GBps * 1e9 * calibration_.link_efficiency(shape.intra);
  // Across nodes a GPU has its share of the node's NICs (its own NIC on rail-optimised nodes).
  const double nic_share = shape.nics > 0 ? std::min(1.0, static_cast<double>(shape.nics) / shape.ppn) : 1.0;
  c.link_Bps[static_cast<int>(LinkKind::network)] =
      shape.nic_GBps * 1e9 * calibration_.link_efficiency(LinkKind::network) * nic_share;
  return c;
}

void CollectiveModel::limit_to_p2p_channels(StepCosts& costs, const CollectiveCall& call, const CommShape& shape) const {
  // A member sends to each peer on the channels NCCL gives it; AllToAll sends to every peer at
  // once, so its peers across nodes together use up to all of the communicator's p2p channels.
  const bool all_to_all = call.op == Op::all_to_all;
  const std::uint64_t per_peer_bytes = all_to_all ? call.bytes / std::max<std::size_t>(1, call.gpus.size()) : call.bytes;
  const std::uint32_t per_peer = p2p_channels_for(per_peer_bytes, shape, selection_.nccl_version(), selection_.cta_limits());
  const std::uint32_t local_peers = std::min(shape.ranks, shape.ppn) - 1;
  const std::uint32_t comm_p2p = all_to_all ? p2p_channels(shape, selection_.cta_limits()) : 0;
  const auto channels_over = [&](LinkKind k) -> double {
    if (!all_to_all)
      return per_peer;
    // Across nodes NCCL's channel assignment leaves some channels busier than others.
    if (k == LinkKind::network)
      return all_to_all_network_channels(shape, per_peer, comm_p2p, selection_.nccl_version());
    return std::min(comm_p2p, per_peer * std::max(1u, local_peers));
  };
  for (LinkKind k : {LinkKind::nvlink, LinkKind::pcie, LinkKind::network})
    costs.p2p_Bps[static_cast<int>(k)] = calibration_.p2p_channel_GBps[static_cast<int>(k)] * 1e9 * channels_over(k);
}

// The CTAs a call runs per NIC it leaves through. NCCL runs the communicator's channels as CTAs
// (comm_channels: the ring graph's, doubled at set-up; NVLS its own), every copy of a graph's
// channel on that channel's NIC; a call on fewer graph channels than the graph has runs that share.
double CollectiveModel::ctas_per_nic(const NcclTuner& tuner, NcclAlgo algo, std::uint32_t channels,
                                     std::uint32_t nics_used) const {
  const ChannelGraph& graph = tuner.graph(algo);
  const bool nvls = algo == NcclAlgo::nvls || algo == NcclAlgo::nvls_tree;
  const double ctas = nvls ? selection_.cta_limits().clamp(graph.channels) : comm_channels(tuner.shape(), selection_.cta_limits());
  return ctas * channels / std::max(1u, graph.channels) / std::max(1u, nics_used);
}

StepCosts CollectiveModel::costs_for(const NcclTuner& tuner, Op op, NcclAlgo algo, Protocol proto, std::uint32_t channels,
                                     std::uint64_t) const {
  const CommShape& shape = tuner.shape();
  StepCosts c = point_to_point_costs(shape);
  c.protocol = proto;
  c.channels = channels;
  const auto a = nccl::index(algo), p = nccl::index(proto);
  c.base_s = std::max(0.0, nccl::kBaseLatency[a][p] + calibration_.extra_base(proto)) * 1e-6;
  c.ring_tail_copy_Bps = calibration_.ring_tail_copy_GBps * 1e9;

  // Per-hop latency: NCCL's figure for this algorithm and protocol over that kind of link (or the
  // route's own latency if the platform says it is slower), plus the calibrated extra.
  const double ppn = static_cast<double>(shape.ranks) / shape.nodes;
  for (LinkKind k : {LinkKind::nvlink, LinkKind::pcie, LinkKind::network}) {
    double nominal = nccl::kHwLatency[hw_of(k)][a][p];
    if (k == LinkKind::network && ppn == 1)
      nominal = nccl::kHwLatency[nccl::kNet][nccl::index(NcclAlgo::tree)][p];
    if (k != LinkKind::network && algo == NcclAlgo::ring && shape.nodes > 1)
      // NCCL's figure for AMD hosts steers its choices (nccl_tuner.cpp); as a cost, the InfiniBand
      // tables of AMD and Intel hosts alike (Sophia's DGX A100, Azure's NDv4) fit its Intel one,
      // the calibration's default.
      nominal = std::max(nominal, calibration_.net_overhead_us * (proto == Protocol::simple ? 3 : 1));
    const double wire_us = (k == LinkKind::network ? shape.net_latency_s : shape.intra_latency_s) * 1e6;
    c.hop_s[static_cast<int>(k)] = std::max(0.0, std::max(nominal, wire_us) + calibration_.extra_hop(k)) * 1e-6;
  }

  // The bandwidth the channels really get: each channel's share of a GPU's intra-node links, and
  // of the NICs it crosses (channels spread over the NICs round-robin), at calibrated efficiency.
  const ChannelGraph& nominal = tuner.graph(algo);
  ChannelGraph real;
  real.channels = channels;
  real.bw_intra_GBps = shape.intra_GBps * calibration_.link_efficiency(shape.intra) / std::max(1u, nominal.channels);
  const std::uint32_t nics_used = std::min(channels, std::max(1u, shape.nics));
  double nic_GBps = shape.nic_GBps * calibration_.link_efficiency(LinkKind::network);
  if (calibration_.coll_channel_net_GBps > 0.0)
    nic_GBps = std::min(nic_GBps, ctas_per_nic(tuner, algo, channels, nics_used) * calibration_.coll_channel_net_GBps);
  real.bw_inter_GBps = nic_GBps * nics_used / static_cast<double>(channels);
  // NCCL's per-size tree correction is left out on purpose: it stands for the pipeline filling,
  // which the schedules model hop by hop (pipeline_unit.hpp).
  const double share = static_cast<double>(channels) / std::max(1u, nominal.channels);
  c.link_Bps[static_cast<int>(shape.intra)] = channels * real.bw_intra_GBps * 1e9;
  // NVLS reduces in the switch: what the switch sustains limits the node's part, not the network's.
  real.bw_intra_GBps *= calibration_.algorithm_efficiency(algo);
  const double bw = nccl_algorithm_bandwidth(shape, op, algo, proto, real, SpeedReading::physical, share) *
                    calibration_.protocol_efficiency(proto);
  c.algorithm_Bps = bw * 1e9;
  return c;
}

Plan CollectiveModel::plan(const CollectiveCall& call) const {
  Plan plan;
  plan.shape = comm_shape(call.gpus, platform_);
  plan.node_of_member = nodes_of(call, platform_);
  const CommShape& shape = plan.shape;
  NcclTuner tuner(shape, selection_.nccl_version());  // the channel search, once per plan
  tuner.set_ll128_explicit(selection_.protocols_given(call.op) && selection_.protocol_enabled(call.op, Protocol::ll128));
  std::string why_not;

  // A researcher's algorithm named for this op comes first.
  for (const std::string& name : selection_.extra_algorithms_for(call.op)) {
    const Algorithm* algorithm = algorithms_.find(name);
    const std::string reason = algorithm == nullptr ? "not registered" : algorithm->unsupported(call, shape);
    if (reason.empty()) {
      plan.algorithm = algorithm;
      plan.algorithm_name = algorithm->name();
      plan.protocol = Protocol::simple;
      plan.channels = std::max(1u, tuner.graph(NcclAlgo::ring).channels);
      plan.costs = costs_for(tuner, call.op, NcclAlgo::ring, Protocol::simple, plan.channels, call.bytes);
      return plan;
    }
    why_not += "\n  " + name + ": " + reason;
  }

  if (call.op == Op::all_to_all || call.op == Op::send_recv) {
    const char* name = call.op == Op::all_to_all ? "pairwise" : "p2p";
    plan.algorithm = algorithms_.find(name);
    plan.algorithm_name = name;
    plan.costs = point_to_point_costs(shape);
    if (call.op == Op::all_to_all) {
      plan.costs.link_Bps[static_cast<int>(LinkKind::network)] *= calibration_.all_to_all_efficiency;
      plan.costs.efficiency[static_cast<int>(LinkKind::nvlink)] *= calibration_.all_to_all_nvlink_efficiency;
    }
    // The proxy sets up each peer across nodes in turn before that peer's data moves.
    const std::uint32_t remote_peers =
        call.op == Op::all_to_all ? shape.ranks - std::min(shape.ranks, shape.ppn) : (shape.nodes > 1 ? 1 : 0);
    plan.costs.base_s += remote_peers * calibration_.p2p_peer_net_us * 1e-6;
    // NCCL sizes a send/recv's channels by the communicator it runs on, not by the two ranks.
    const bool on_larger = call.comm_gpus.size() > call.gpus.size();
    limit_to_p2p_channels(plan.costs, call, on_larger ? comm_shape(call.comm_gpus, platform_) : shape);
    plan.channels = 1;  // what the slowdown model's features were made with
    return plan;
  }

  double best = std::numeric_limits<double>::infinity();
  for (NcclAlgo algo : kNcclAlgos) {
    const std::string name(to_string(algo));
    const Algorithm* algorithm = algorithms_.find(name);
    if (!selection_.algorithm_enabled(call.op, name))
      continue;
    for (Protocol proto : kProtocols) {
      if (!selection_.protocol_enabled(call.op, proto))
        continue;
      std::string reason = missing_in(algo, selection_.nccl_version());
      if (reason.empty())
        reason = tuner.unavailable(call.op, algo, proto);
      if (reason.empty() && algorithm == nullptr)
        reason = "echo-des has no schedule for it yet";
      if (reason.empty())
        reason = algorithm->unsupported(call, shape);
      if (!reason.empty()) {
        const std::string line = "\n  " + name + "/" + std::string(to_string(proto)) + ": " + reason;
        if (why_not.find(line) == std::string::npos)
          why_not += line;
        continue;
      }
      const double t = *tuner.estimate_us(call.op, algo, proto, call.bytes);
      if (t < best) {
        best = t;
        plan.algorithm = algorithm;
        plan.algorithm_name = name;
        plan.protocol = proto;
        plan.nccl_estimate_us = t;
      }
    }
  }
  if (plan.algorithm == nullptr)
    throw UserError("", 0,
                    "no allowed algorithm and protocol can run " + std::string(to_string(call.op)) + " on " +
                        std::to_string(call.gpus.size()) + " GPUs here (algorithms: " +
                        (selection_.algorithm_list().empty() ? "all" : selection_.algorithm_list()) + ", protocols: " +
                        (selection_.protocol_list().empty() ? "all" : selection_.protocol_list()) + "):" + why_not,
                    "allow another algorithm or protocol (NCCL_ALGO / NCCL_PROTO, --algo / --proto, or the job's "
                    "`communication` section), or a newer nccl_version where one is missing");
  const NcclAlgo algo = *nccl_algo_from_string(plan.algorithm_name);
  plan.channels = tuner.channels_used(algo, plan.protocol, call.bytes);
  plan.costs = costs_for(tuner, call.op, algo, plan.protocol, plan.channels, call.bytes);
  return plan;
}

Schedule CollectiveModel::build(const Plan& plan, const CollectiveCall& call) const {
  const PlannedCall planned{call, plan.shape, plan.node_of_member, platform_, plan.costs};
  return plan.algorithm->build(planned);
}

std::optional<Schedule> CollectiveModel::build_for_member(const Plan& plan, const CollectiveCall& call, std::uint32_t self) const {
  const PlannedCall planned{call, plan.shape, plan.node_of_member, platform_, plan.costs};
  return plan.algorithm->build_for_member(planned, self);
}

std::uint64_t CollectiveModel::step_count(const Plan& plan, const CollectiveCall& call) const {
  const PlannedCall planned{call, plan.shape, plan.node_of_member, platform_, plan.costs};
  return plan.algorithm->step_count(planned);
}

std::optional<double> CollectiveModel::closed_form_s(const Plan& plan, const CollectiveCall& call) const {
  const PlannedCall planned{call, plan.shape, plan.node_of_member, platform_, plan.costs};
  return plan.algorithm->closed_form_s(planned);
}

} // namespace echo::collectives
