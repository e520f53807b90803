#pragma once
// Writes the SimGrid platform XML of a generated cluster: nodes of `gpus_per_node` GPUs on an
// NVSwitch (one SPLITDUPLEX link per GPU), `nics_per_node` NICs per node (GPU i uses NIC
// i * nics / gpus), and a two-level fat-tree: pods of up to `pod_nodes` nodes under rail leaf
// switches, pods joined by spine up-links of (pod NIC capacity / oversubscription).
//
// Layout: a Full root zone over one DijkstraCache zone per pod (zones stay few: SimGrid 3.32's
// host creation and zone sealing walk every zone and every host, quadratic with a zone per node).
// In a pod, each GPU is a host with the properties `gpu` and `node`; each node has an NVSwitch
// router (GPU <-> NVSwitch over the GPU's NVLink) and a gateway router (GPU <-> gateway over its
// NIC); gateways meet over the pod's leaf hop, directly and at the pod's leaf router, which is the
// pod's gateway to the spine. Each GPU's own NIC link is on every inter-node route it takes, which
// is where a rail-optimized fabric puts the bottleneck. Routes, in order: per node its NVLink
// routes before its NIC routes (a route between two GPUs of a node costs two links either way and
// SimGrid's Dijkstra keeps the path through the router it met first, the NVSwitch); then the
// pod's gateway routes. platform_builder makes the same platform in the engine, name for name.
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
