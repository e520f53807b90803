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

#include <ostream>

namespace echo::platforms {

void write_platform_xml(const ClusterSpec& spec, std::ostream& out);

} // namespace echo::platforms
