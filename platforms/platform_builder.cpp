#include "platforms/platform_builder.hpp"

#include "platforms/platform_writer.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace echo::platforms {

namespace sg4 = simgrid::s4u;
using Direction = sg4::LinkInRoute::Direction;
using simgrid::kernel::routing::NetPoint;

namespace {

sg4::Link* duplex(sg4::NetZone* zone, const std::string& name, double bandwidth_Bps, double latency_s) {
  sg4::Link* link = zone->create_split_duplex_link(name, bandwidth_Bps);
  link->set_latency(latency_s);
  return link;
}

// A node's links, made in the root zone before the pods exist: SimGrid checks every new name
// against the whole zone tree, so names made while the tree is small cost little.
struct NodeLinks {
  std::vector<sg4::Link*> nvlinks, nics;
};

// One node inside its pod's graph (layout in platform_writer.hpp): GPUs on NVLink to the node's
// NVSwitch, each GPU on its NIC to the node's gateway. Returns the gateway. The NVLink routes go in
// first: a route between two GPUs of a node costs two links either way, and SimGrid's Dijkstra
// keeps the first it reaches, the one through the NVSwitch made first.
NetPoint* build_node(const ClusterSpec& spec, const PresetFigures& f, std::uint32_t n, sg4::NetZone* pod,
                     const NodeLinks& links) {
  const std::string node = "node" + std::to_string(n);
  std::vector<sg4::Host*> gpus;
  for (std::uint32_t g = 0; g < spec.gpus_per_node; ++g) {
    sg4::Host* gpu = pod->create_host(node + "-gpu" + std::to_string(g), 1e9);
    gpu->set_property("gpu", spec.gpu);
    gpu->set_property("node", node);
    gpus.push_back(gpu);
  }
  NetPoint* nvswitch = pod->create_router(node + "-nvswitch");
  NetPoint* gateway = pod->create_router(node + "-gw");
  for (std::uint32_t g = 0; g < spec.gpus_per_node; ++g)
    pod->add_route(gpus[g]->get_netpoint(), nvswitch, nullptr, nullptr, {{links.nvlinks[g], Direction::UP}});
  for (std::uint32_t g = 0; g < spec.gpus_per_node; ++g)
    pod->add_route(gpus[g]->get_netpoint(), gateway, nullptr, nullptr,
                   {{links.nics[g * f.nic_links / spec.gpus_per_node], Direction::UP}});
  return gateway;
}

} // namespace

// The engine is not called: the first zone made becomes its root. A zone per pod, not per node:
// SimGrid 3.32 walks every zone on each host it creates and every host on each zone it seals.
void build_platform(simgrid::s4u::Engine& /*engine*/, const ClusterSpec& spec) {
  const PresetFigures f = preset_figures(spec);
  sg4::NetZone* root = sg4::create_full_zone("cluster");
  root->set_property("preset", spec.preset);
  root->set_property("homogeneous", "yes");
  root->set_property("cpu", spec.cpu);
  root->set_property("gpu_nic_path", spec.gpu_nic_path);
  root->set_property("gpu_speed_spread", spec.gpu_speed_spread);
  for (const auto& [key, value] : spec.calibration)
    root->set_property(key, value);
  std::vector<NodeLinks> node_links(spec.nodes);
  for (std::uint32_t n = 0; n < spec.nodes; ++n) {
    const std::string node = "node" + std::to_string(n);
    for (std::uint32_t g = 0; g < spec.gpus_per_node; ++g)
      node_links[n].nvlinks.push_back(duplex(root, node + "-nvlink" + std::to_string(g), f.nvlink_Bps, f.nvlink_latency_s));
    for (std::uint32_t k = 0; k < f.nic_links; ++k)
      node_links[n].nics.push_back(duplex(root, node + "-nic" + std::to_string(k), f.nic_link_Bps, f.nic_latency_s));
  }
  std::vector<sg4::Link*> uplinks, leafhops;
  for (std::uint32_t p = 0; p < f.pods; ++p) {
    const std::string pod_name = "pod" + std::to_string(p);
    uplinks.push_back(duplex(root, pod_name + "-uplink", f.uplink_Bps, f.switch_latency_s / 2));
    // Leaf hop: a switch traversal, never the bottleneck (the NIC links are).
    sg4::Link* leafhop = root->create_link(pod_name + "-leafhop", f.uplink_Bps * spec.oversubscription);
    leafhop->set_latency(f.switch_latency_s);
    leafhop->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
    leafhops.push_back(leafhop);
  }

  std::vector<sg4::NetZone*> pods;
  std::vector<NetPoint*> leaves;
  for (std::uint32_t p = 0; p < f.pods; ++p) {
    const std::string pod_name = "pod" + std::to_string(p);
    sg4::NetZone* pod = sg4::create_dijkstra_zone(pod_name, true);
    pod->set_parent(root);
    pod->set_property("intra", "nvlink");
    pod->set_property("nvswitch", "yes");
    const std::uint32_t first = p * f.pod_nodes;
    const std::uint32_t last = std::min(spec.nodes, first + f.pod_nodes);
    std::vector<NetPoint*> gateways;
    for (std::uint32_t n = first; n < last; ++n)
      gateways.push_back(build_node(spec, f, n, pod, node_links[n]));
    NetPoint* leaf = pod->create_router(pod_name + "-leaf");
    for (std::size_t a = 0; a < gateways.size(); ++a) {
      for (std::size_t b = a + 1; b < gateways.size(); ++b)
        pod->add_route(gateways[a], gateways[b], nullptr, nullptr, {{leafhops[p], Direction::NONE}});
      pod->add_route(gateways[a], leaf, nullptr, nullptr, {{leafhops[p], Direction::NONE}});
    }
    pod->seal();
    pods.push_back(pod);
    leaves.push_back(leaf);
  }
  // Spine: each pod's up-link carries half a switch latency each way, so a pod-to-pod route
  // crosses leaf, spine, leaf: three switch latencies in all.
  for (std::uint32_t a = 0; a < f.pods; ++a)
    for (std::uint32_t b = a + 1; b < f.pods; ++b)
      root->add_route(pods[a]->get_netpoint(), pods[b]->get_netpoint(), leaves[a], leaves[b],
                      {{uplinks[a], Direction::UP}, {uplinks[b], Direction::DOWN}});
  root->seal();
}

} // namespace echo::platforms
