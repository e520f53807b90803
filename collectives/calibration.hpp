#pragma once
// Calibration: the physical parameters of the collective model that are fitted to measurements
// of a real machine, and only those. They are properties of the platform (root zone properties,
// written by the presets that were fitted), never constants in the code:
//
//   nccl.extra_base_us.PROTO    added to NCCL's per-call base latency of PROTO = ll | ll128 | simple
//                               (launch, set-up, the protocol's synchronisation)
//   nccl.extra_hop_us.KIND      added to NCCL's per-hop latency over KIND = nvlink | pcie | net
//                               (may be negative: NCCL's figure is a guess for a typical machine)
//   nccl.efficiency.KIND        fraction of the link bandwidth a channel really achieves
//   nccl.efficiency.PROTO       fraction of NCCL's bandwidth limit the LL / LL128 protocols reach
//   nccl.efficiency.nvls        fraction of a GPU's NVLink bandwidth the switch's multicast
//                               reduction sustains inside a node under NVLS (an AllReduce carries
//                               S (1 + 1/n) each way)
//   nccl.efficiency.nvls_tree   the same for the node's part of NVLSTree (the network's part is
//                               not touched); unset: nccl.efficiency.nvls. Fitted apart because
//                               they measure apart: on DGX H100 one node's NVLS sustains more than
//                               the node's part of a two-node NVLSTree (docs/validation.md)
//   nccl.efficiency.all_to_all  fraction of the NICs' collective rate (after nccl.efficiency.net)
//                               that AllToAll sustains, every GPU sending to and receiving from
//                               every other node at once (many connections into each NIC)
//   nccl.efficiency.all_to_all_nvlink  the same inside a node: the fraction of its NVLinks' rate
//                               (after nccl.efficiency.nvlink) a GPU sustains sending to and
//                               receiving from every other GPU of the node at once
//   nccl.p2p_channel_bw.KIND    GB/s one send/recv channel moves over KIND (0: no limit beyond
//                               the link). NCCL gives a peer's send/recv a few channels of its
//                               own (p2p_channels.hpp), collectives many: one peer alone may stay
//                               well below a fast NIC that a collective fills
//   nccl.p2p_peer_us.net        microseconds a send/recv group spends per peer across nodes before
//                               its data moves, once per call: the network proxy posts each
//                               peer's sends and receives one after another (AllToAll: every
//                               peer on other nodes), cheap through InfiniBand verbs (0), not
//                               through libfabric's providers
//   nccl.net_overhead_us        microseconds every step of an inter-node ring costs at least on
//                               its intra-node hops, three times that for Simple (NCCL's "net
//                               overhead": the proxy's work for each step). Unset: 1, NCCL's figure
//                               for Intel hosts (NCCL's choices use its own figure for the host's CPU)
//   nccl.tail_copy_bw.ring      GB/s a ring's channel (one CTA) moves its last received chunk into
//                               the output at, while its links wait: NCCL's ring kernel runs a
//                               chunk's steps one after another on the same warps, and the last
//                               (AllReduce's and AllGather's receive into the output,
//                               ReduceScatter's final reduce) sends nothing, so every member's
//                               outgoing link waits for it before the next chunk's first send.
//                               Over a call the waits add up to the member's share of the data a
//                               channel at this rate, whatever the chunk count. 0 (unset): no wait
//   nccl.coll_channel_bw.net    GB/s one collective channel (a CTA: NCCL runs each channel as one
//                               thread block and one proxy connection) moves between nodes (0: no
//                               limit). A NIC carrying few channels moves no more than they do
//
// Unset, a platform runs with NCCL's nominal figures (extras 0, efficiencies 1).
#include "collectives/nccl_vocabulary.hpp"
#include "platforms/route.hpp"

#include <string>

namespace echo::collectives {

struct Calibration {
  double extra_base_us[3] = {0.0, 0.0, 0.0};  // by Protocol
  double extra_hop_us[3] = {0.0, 0.0, 0.0};    // by platforms::LinkKind
  double efficiency[3] = {1.0, 1.0, 1.0};      // by platforms::LinkKind
  double ll_efficiency = 1.0, ll128_efficiency = 1.0;
  double nvls_efficiency = 1.0;
  double nvls_tree_efficiency = 1.0;
  double all_to_all_efficiency = 1.0;
  double all_to_all_nvlink_efficiency = 1.0;
  double p2p_channel_GBps[3] = {0.0, 0.0, 0.0};  // by platforms::LinkKind; 0 = no limit
  double coll_channel_net_GBps = 0.0;            // 0 = no limit
  double p2p_peer_net_us = 0.0;
  double ring_tail_copy_GBps = 0.0;  // 0 = no wait
  double net_overhead_us = 1.0;  // unset: NCCL's Intel figure, on every host (collective_model.cpp)

  double extra_base(Protocol p) const { return extra_base_us[static_cast<int>(p)]; }
  double extra_hop(platforms::LinkKind k) const { return extra_hop_us[static_cast<int>(k)]; }
  double link_efficiency(platforms::LinkKind k) const { return efficiency[static_cast<int>(k)]; }
  double protocol_efficiency(Protocol p) const {
    return p == Protocol::ll ? ll_efficiency : p == Protocol::ll128 ? ll128_efficiency : 1.0;
  }
  double algorithm_efficiency(NcclAlgo a) const {
    return a == NcclAlgo::nvls ? nvls_efficiency : a == NcclAlgo::nvls_tree ? nvls_tree_efficiency : 1.0;
  }
};

// Reads the `nccl.*` properties of the platform. Throws UserError for a value that is not a
// number in range (latencies >= 0, efficiencies in (0, 1]), naming the property.
Calibration calibration_of(const platforms::RouteOracle& platform, const std::string& source);

} // namespace echo::collectives
