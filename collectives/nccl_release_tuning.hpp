#pragma once
// The constants of NCCL's tuning model that changed between releases, for Tree and Ring (read from
// src/graph/tuning.cc of each release tag, 2.12 to 2.30). They steer NCCL's choice of algorithm and
// protocol only: what the hardware then does is the calibrated model's (collective_model.hpp), which
// keeps the newest constants as its nominal hop costs.
//   base latency, Tree / Ring x LL / LL128 / Simple:   <= 2.17 {4.4, 4.4, 0} / {3.6, 10, 8.4};
//                                                       2.18-2.22 {6.8, 14, 0} / {6.6, 14, 8.4};
//                                                       >= 2.23 Tree Simple 8.4
//   Tree Simple per-hop latency NVLink / PCIe / network: 28 / 28 / 28 up to 2.17 and in 2.19-2.22,
//                                                       4 / 6 / 14 in 2.18 (its last patch), 4 / 4 / 14 from 2.23
//   Ring Simple per-hop latency over the network:       28 up to 2.13, 9.6 in 2.14-2.17, 14 from 2.18
//   NVLink LL per-hop latency, Tree / Ring:             0.52 / 0.47 up to 2.17, 0.6 / 0.6 after
//   Ring LL bus bandwidth, a share of the graph's:      1/4 (across nodes, AllReduce, Reduce) or 1/3
//                                                       up to 2.20, 1/2 from 2.21
//   the network device's reported latency (the graph's  replaces the network hop's latency up to 2.17;
//   latencyInter, from the network plugin):            added to it from 2.18, twice for Simple (the
//                                                       "flush extra latency")
//   Ring AllReduce's network steps:                     2 x nodes up to 2.22, 2 x (nodes - 1) from 2.23
//   a network hop with one GPU a node:                  the algorithm's own up to 2.22, Tree's from 2.23
#include "collectives/nccl_version.hpp"
#include "collectives/nccl_vocabulary.hpp"

namespace echo::collectives {

struct NcclReleaseTuning {
  double base_us[2][3];    // [tree, ring][protocol]
  double hop_us[3][2][3];  // [nvlink, pcie, network][tree, ring][protocol]
  bool ring_ll_quarter;    // ring LL at 1/4 (1/3 on one node for AllGather and the like), not 1/2
  bool device_latency_added;  // the device's latency adds to a network hop's (else replaces it if set)
  bool ring_all_reduce_2n_net_steps;  // a ring AllReduce counts 2 x nodes network steps, not 2 x (nodes - 1)
  bool tree_hop_at_one_per_node;      // with one GPU a node every algorithm's network hop is Tree's
};

// The release's constants: the newest (nccl_constants.hpp) with what older releases had instead;
// Tree and Ring only (the other algorithms keep the newest ones).
NcclReleaseTuning release_tuning(NcclVersion version);

} // namespace echo::collectives
