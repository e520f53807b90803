#pragma once
// CommShape: what NCCL's topology detection learns about one communicator — how its ranks spread
// over nodes, the GPU architecture, and the links inside and between nodes — read from the
// platform through the RouteOracle. Bandwidths in GB/s (1e9 B/s) as NCCL counts them.
#include "collectives/nccl_vocabulary.hpp"
#include "platforms/route.hpp"

#include <cstdint>
#include <vector>

namespace echo::collectives {

struct CommShape {
  std::uint32_t ranks = 1;
  std::uint32_t nodes = 1;
  std::uint32_t ppn = 1;  // most ranks on one node
  Arch arch = Arch::ampere;
  platforms::LinkKind intra = platforms::LinkKind::nvlink;
  double intra_GBps = 0.0;     // one GPU to another in its node, per direction (0 if ppn == 1)
  double intra_latency_s = 0.0;
  double nic_GBps = 0.0;       // one NIC, per direction (0 on one node)
  std::uint32_t nics = 0;      // NICs per node the communicator's GPUs leave through
  double net_latency_s = 0.0;  // GPU to GPU across nodes
  bool nvswitch = false;
  bool amd_cpu = false;        // root property cpu="amd": NCCL's LL caps across nodes depend on it
  bool nic_past_switches = false;  // root property gpu_nic_path phb or sys: no LL128 across nodes
  // The latency the network plugin reports for its devices (root property nccl.net_device_latency_us;
  // NCCL's graph latencyInter): NCCL's tuner counts it on every network hop it estimates. 0 for
  // InfiniBand verbs; aws-ofi-nccl reports 75 us on AWS's GPU instances.
  double net_device_latency_us = 0.0;
};

// `gpus` are the members' GPU indices, in member order.
CommShape comm_shape(const std::vector<std::uint32_t>& gpus, const platforms::RouteOracle& platform);

} // namespace echo::collectives
