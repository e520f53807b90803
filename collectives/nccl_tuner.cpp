#include "collectives/nccl_tuner.hpp"

#include "collectives/nccl_constants.hpp"

#include <algorithm>
#include <cmath>

namespace echo::collectives {

using namespace nccl;

namespace {

std::uint32_t nsteps(Op op, std::uint32_t ranks) {
  switch (op) {
  case Op::all_reduce: return 2 * (ranks - 1);
  case Op::all_gather:
  case Op::reduce_scatter: return ranks - 1;
  default: return ranks;
  }
}


bool is_nccl_function(Op op) {
  return op == Op::all_reduce || op == Op::all_gather || op == Op::reduce_scatter || op == Op::broadcast ||
         op == Op::reduce;
}

} // namespace

NcclTuner::NcclTuner(const CommShape& shape, NcclVersion release)
    : shape_(shape), ring_(ring_graph(shape)), nvls_(nvls_graph(shape)), release_(release_tuning(release)) {}

std::string NcclTuner::unavailable(Op op, NcclAlgo a, Protocol p) const {
  const CommShape& s = shape_;
  if (!is_nccl_function(op))
    return std::string(to_string(op)) + " is not a collective NCCL tunes";
  if (a == NcclAlgo::collnet_direct || a == NcclAlgo::collnet_chain)
    return "CollNet needs in-network reduction (SHARP), which the platform does not describe";
  if ((op == Op::broadcast || op == Op::reduce) && a != NcclAlgo::ring)
    return "NCCL runs " + std::string(to_string(op)) + " as a ring only";
  if ((op == Op::all_gather || op == Op::reduce_scatter) && a != NcclAlgo::ring && a != NcclAlgo::pat &&
      a != NcclAlgo::nvls)
    return "NCCL runs " + std::string(to_string(op)) + " as Ring, PAT or NVLS only";
  if (op == Op::all_reduce && a == NcclAlgo::pat)
    return "PAT runs AllGather and ReduceScatter only";
  if ((a == NcclAlgo::nvls || a == NcclAlgo::nvls_tree || a == NcclAlgo::pat) && p != Protocol::simple)
    return std::string(to_string(a)) + " runs with the Simple protocol only";
  if (a == NcclAlgo::nvls || a == NcclAlgo::nvls_tree) {
    if (s.arch != Arch::hopper && s.arch != Arch::blackwell)
      return "NVLS needs NVLink SHARP: Hopper or newer GPUs (these are " + std::string(to_string(s.arch)) + ")";
    if (!s.nvswitch)
      return "NVLS needs the GPUs of a node joined by an NVSwitch (node zone property nvswitch=\"yes\")";
    if (nvls_.channels < 2)
      return "NVLS needs at least two GPUs per node";
    if (a == NcclAlgo::nvls && s.nodes > 1)
      return "NVLS across nodes needs CollNet (SHARP); NCCL uses NVLSTree there";
    if (a == NcclAlgo::nvls_tree && s.nodes == 1)
      return "NVLSTree needs several nodes; on one node NCCL uses NVLS";
    if (a == NcclAlgo::nvls && op != Op::all_reduce && s.nodes > 1)
      return "NVLS AllGather / ReduceScatter across nodes needs CollNet";
  }
  if (a == NcclAlgo::pat && s.ppn != 1)
    return "PAT needs one GPU per node (this communicator has up to " + std::to_string(s.ppn) + ")";
  if (p == Protocol::ll128 && !ll128_explicit_ && s.intra == platforms::LinkKind::pcie && s.ppn > 1)
    return "NCCL enables LL128 only over NVLink (unless NCCL_PROTO names it)";
  if (p == Protocol::ll128 && !ll128_explicit_ && s.nodes > 1 && s.nic_past_switches)
    return "NCCL enables LL128 across nodes only where a GPU reaches its NIC through PCIe switches (the "
           "platform's gpu_nic_path is phb or sys), unless NCCL_PROTO names it";
  if (s.ranks < 2)
    return "one rank: nothing to communicate";
  return {};
}

double nccl_algorithm_bandwidth(const CommShape& s, Op op, NcclAlgo a, Protocol p, const ChannelGraph& g,
                                SpeedReading reading, double channel_share, bool ring_ll_quarter) {
  const std::size_t arch = index(s.arch), nc = s.nodes <= 2 ? s.nodes - 1 : 2;
  const std::size_t ll_row = s.nodes == 1 ? arch : (s.amd_cpu ? 1 : 0);
  const double ppn = static_cast<double>(s.ranks) / s.nodes;
  double bw = s.nodes <= 2 ? g.bw_intra_GBps : g.bw_inter_GBps;
  if (reading == SpeedReading::physical && s.nodes > 1) {
    const double inter = g.bw_inter_GBps * ((a == NcclAlgo::tree && s.nodes == 2) ? 2 : 1);
    bw = s.ppn > 1 ? std::min(g.bw_intra_GBps, inter) : inter;
  }
  if ((a == NcclAlgo::nvls || a == NcclAlgo::nvls_tree) && reading == SpeedReading::physical && op == Op::all_reduce) {
    // What a GPU's NVLinks carry, each way: the switch reads all of its buffer for the others'
    // reductions and hands it its 1/n share reduced (ld_reduce), then it multicasts that share and
    // receives everyone's (st): S (1 + 1/n) for S bytes. NCCL's own formula grows with fewer GPUs;
    // the links' load does not (4 H100s take 1.13x the time of 8 for the same AllReduce).
    double alg = g.bw_intra_GBps * g.channels * ppn / (ppn + 1);
    if (s.nodes > 1) {
      double inter = g.bw_inter_GBps * ((s.nodes <= 2 && a == NcclAlgo::nvls_tree) ? 2 : 1);
      if (a == NcclAlgo::nvls_tree)
        inter = std::min(inter, kPerChMaxNvlsTreeBw[arch][nc]);
      alg = std::min(alg, g.channels * inter * static_cast<double>(s.ranks) / nsteps(op, s.ranks));
    }
    return alg;
  }
  if (a == NcclAlgo::nvls || a == NcclAlgo::nvls_tree) {
    double intra = g.bw_intra_GBps * kNvlsEfficiency[arch] * (g.channels - 1) / g.channels;
    intra *= op == Op::all_reduce ? 2.0 : (ppn - 1) / ppn;
    const double inter = g.bw_inter_GBps * ((s.nodes <= 2 && a == NcclAlgo::nvls_tree) ? 2 : 1);
    bw = std::min(intra, s.nodes > 1 ? inter : intra);
    if (a == NcclAlgo::nvls_tree)
      bw = std::min(bw, kPerChMaxNvlsTreeBw[arch][nc]);
  }
  double bus = g.channels * bw;
  if (a == NcclAlgo::ring && p == Protocol::ll) {
    const bool quarter = s.nodes > 1 || op == Op::all_reduce || op == Op::reduce;
    bus = std::min(kLlMaxBw[ll_row][nc] * channel_share, bus * (!ring_ll_quarter ? 0.5 : quarter ? 0.25 : 1.0 / 3.0));
  }
  if (a == NcclAlgo::ring && p == Protocol::ll128)
    bus = std::min(bus * 0.92, g.channels * kPerChMaxRingLL128Bw[arch][nc]);
  if (a == NcclAlgo::tree && op == Op::all_reduce)
    bus = std::min(bus * 0.92, g.channels * kPerChMaxTreeBw[arch][nc]);
  if (a == NcclAlgo::tree && p == Protocol::ll)
    bus = std::min(bus / 3.8, kLlMaxBw[ll_row][nc] * channel_share);
  if (a == NcclAlgo::tree && p == Protocol::ll128)
    bus = std::min(bus * (s.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), g.channels * kPerChMaxTreeLL128Bw[arch][nc]);
  if (a == NcclAlgo::pat)
    bus *= 0.75;
  // Bus bandwidth to algorithm bandwidth.
  if (!(a != NcclAlgo::ring && (op == Op::all_gather || op == Op::reduce_scatter))) {
    if (a == NcclAlgo::ring || a == NcclAlgo::nvls || a == NcclAlgo::nvls_tree)
      bus *= static_cast<double>(s.ranks) / nsteps(op, s.ranks);
    else
      bus *= 0.5;
  }
  return bus;
}

double NcclTuner::latency_us(Op op, NcclAlgo a, Protocol p) const {
  const CommShape& s = shape_;
  const std::size_t ai = index(a), pi = index(p);
  const int intra_hw = s.intra == platforms::LinkKind::pcie ? kPci : kNvlink;
  const double ppn = static_cast<double>(s.ranks) / s.nodes;
  // Tree and Ring read their constants from the release; the others from the newest.
  const auto hop = [&](int hw, NcclAlgo algo) {
    return algo == NcclAlgo::tree || algo == NcclAlgo::ring ? release_.hop_us[hw][algo == NcclAlgo::ring][pi]
                                                            : kHwLatency[hw][index(algo)][pi];
  };
  const bool tree_or_ring = a == NcclAlgo::tree || a == NcclAlgo::ring;
  double lat = tree_or_ring ? release_.base_us[a == NcclAlgo::ring][pi] : kBaseLatency[ai][pi];
  double intra = hop(intra_hw, a);
  double inter = ppn == 1 && release_.tree_hop_at_one_per_node ? hop(kNet, NcclAlgo::tree) : hop(kNet, a);
  // The latency the network plugin reports: since 2.18 added to a network hop's (twice for Simple,
  // NCCL's "flush extra latency"); before, in place of it.
  const double device = s.net_device_latency_us;
  if (release_.device_latency_added)
    inter += device * (p == Protocol::simple ? 2 : 1);
  else if (device > 0)
    inter = device;
  const std::uint32_t steps = nsteps(op, s.ranks);
  switch (a) {
  case NcclAlgo::ring:
    if (op == Op::broadcast || op == Op::reduce) {
      // NCCL's rings use the same channels both ways here: one hop's latency in all.
      lat += hop(s.nodes == 1 ? intra_hw : kNet, a);
    } else {
      double overhead = 0.0;
      if (s.nodes > 1)
        overhead = net_overhead_us(s.amd_cpu) * (p == Protocol::simple ? 3 : 1);
      intra = std::max(intra, overhead);
      const std::uint32_t inter_steps = s.nodes == 1                            ? 0
                                        : op != Op::all_reduce                   ? s.nodes - 1
                                        : release_.ring_all_reduce_2n_net_steps ? 2 * s.nodes
                                                                                 : 2 * (s.nodes - 1);
      lat += (steps - inter_steps) * intra + inter_steps * inter;
    }
    break;
  case NcclAlgo::tree:
    if (op == Op::all_reduce)
      lat += 2 * ((s.ranks / s.nodes - 1) * intra + log2i(s.nodes) * inter);
    break;
  case NcclAlgo::nvls:
    lat = intra + (s.nodes > 1 ? inter : 0.0);
    break;
  case NcclAlgo::nvls_tree:
    lat += intra + 2 * log2i(s.nodes) * inter;
    break;
  case NcclAlgo::pat:
    lat += log2i(s.nodes) * (inter / 3.5) + s.ranks * 2.8;
    break;
  default: break;
  }
  return lat;
}

std::optional<double> NcclTuner::estimate_us(Op op, NcclAlgo a, Protocol p, std::uint64_t bytes) const {
  if (!unavailable(op, a, p).empty())
    return std::nullopt;
  double bw = nccl_algorithm_bandwidth(shape_, op, a, p, graph(a), SpeedReading::nccl, 1.0, release_.ring_ll_quarter);
  double lat = latency_us(op, a, p);
  if (bw <= 0)
    return std::nullopt;
  const int log_size = log2i(bytes >> 6);
  if (a == NcclAlgo::tree && op == Op::all_reduce && log_size >= 0 && log_size < 23)
    bw *= kTreeCorrection[index(p)][log_size];
  if (a == NcclAlgo::ring && p == Protocol::simple && shape_.nodes > 1 && op == Op::all_reduce &&
      bytes / (static_cast<std::uint64_t>(ring_.channels) * shape_.ranks) >= 64)
    lat *= shape_.arch == Arch::volta ? 1.9 : 1.4;  // NCCL's "plateau effect of ring"
  return lat + static_cast<double>(bytes) / (1000.0 * bw);
}

std::uint32_t NcclTuner::channels_used(NcclAlgo a, Protocol p, std::uint64_t bytes) const {
  const ChannelGraph& g = graph(a);
  std::uint32_t nc = std::max(1u, g.channels);
  if (a == NcclAlgo::nvls || a == NcclAlgo::nvls_tree)
    return nc;
  const std::uint64_t threads = kMaxThreads[index(p)];
  std::uint64_t threshold = kThreadThreshold[index(p)];
  if (a == NcclAlgo::ring && p == Protocol::ll)
    threshold *= shape_.ranks;
  while (nc >= 2 && bytes < nc * threads * threshold)
    --nc;
  return nc;
}

} // namespace echo::collectives
