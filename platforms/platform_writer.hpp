#pragma once
// Writes the SimGrid platform XML of a generated cluster: nodes of `gpus_per_node` GPUs on an
// NVSwitch (one SPLITDUPLEX link per GPU), `nics_per_node` NICs per node (GPU i uses NIC
// i * nics / gpus), and a two-level fat-tree: pods of up to `pod_nodes` nodes under rail leaf
// switches, pods joined by spine up-links of (pod NIC capacity / oversubscription).
//
// SimGrid's zones route through one gateway per zone, so a node's NICs meet at a node gateway
// router; each GPU's own NIC link is still on every inter-node route it takes, which is where a
// rail-optimized fabric puts the bottleneck.
#include "platforms/cluster_spec.hpp"

#include <cstdint>
#include <ostream>

namespace echo::platforms {

void write_platform_xml(const ClusterSpec& spec, std::ostream& out);

// The figures of a generated cluster in SI units, as both the XML writer and the in-engine
// builder (platform_builder) lay it out.
struct PresetFigures {
  double nvlink_Bps, nvlink_latency_s;
  std::uint32_t nic_links;  // one per NIC; with several NICs per GPU, one per GPU of their summed rate
  double nic_link_Bps, nic_latency_s, switch_latency_s;
  std::uint32_t pod_nodes, pods;
  double uplink_Bps;  // a pod's spine up-link: its NICs' capacity / oversubscription
};
PresetFigures preset_figures(const ClusterSpec& spec);

} // namespace echo::platforms
