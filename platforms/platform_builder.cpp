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

namespace {

sg4::Link* duplex(sg4::NetZone* zone, const std::string& name, double bandwidth_Bps, double latency_s) {
  sg4::Link* link = zone->create_split_duplex_link(name, bandwidth_Bps);
  link->set_latency(latency_s);
  return link;
}

// One node: its GPUs on NVLink to the switch, its NICs, a gateway router. Same names as the XML.
struct BuiltNode {
  sg4::NetZone* zone;
  simgrid::kernel::routing::NetPoint* gateway;
};

// A node's links, made in the root zone before any other zone exists: SimGrid checks every new
// link's name against the whole zone tree, so links made while the tree is small cost little.
struct NodeLinks {
  std::vector<sg4::Link*> nvlinks, nics;
};

BuiltNode build_node(const ClusterSpec& spec, const PresetFigures& f, std::uint32_t n, sg4::NetZone* pod,
                     const NodeLinks& links) {
  const std::string node = "node" + std::to_string(n);
  sg4::NetZone* zone = sg4::create_full_zone(node);
  zone->set_parent(pod);
  zone->set_property("intra", "nvlink");
  zone->set_property("nvswitch", "yes");
  std::vector<sg4::Host*> gpus;
  for (std::uint32_t g = 0; g < spec.gpus_per_node; ++g)
    gpus.push_back(zone->create_host(node + "-gpu" + std::to_string(g), 1e9)->set_property("gpu", spec.gpu));
  simgrid::kernel::routing::NetPoint* gateway = zone->create_router(node + "-gw");
  for (std::uint32_t a = 0; a < spec.gpus_per_node; ++a)
    for (std::uint32_t b = a + 1; b < spec.gpus_per_node; ++b)
      zone->add_route(gpus[a]->get_netpoint(), gpus[b]->get_netpoint(), nullptr, nullptr,
                      {{links.nvlinks[a], Direction::UP}, {links.nvlinks[b], Direction::DOWN}});
  for (std::uint32_t g = 0; g < spec.gpus_per_node; ++g)
    zone->add_route(gpus[g]->get_netpoint(), gateway, nullptr, nullptr,
                    {{links.nics[g * f.nic_links / spec.gpus_per_node], Direction::UP}});
  zone->seal();
  return {zone, gateway};
}

} // namespace

// The engine is not called: the first zone made becomes its root.
void build_platform(simgrid::s4u::Engine& /*engine*/, const ClusterSpec& spec) {
  const PresetFigures f = preset_figures(spec);
  sg4::NetZone* root = sg4::create_full_zone("cluster");
  root->set_property("preset", spec.preset);
  root->set_property("homogeneous", "yes");
  root->set_property("cpu", spec.cpu);
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
  std::vector<sg4::Link*> uplinks;
  for (std::uint32_t p = 0; p < f.pods; ++p)
    uplinks.push_back(duplex(root, "pod" + std::to_string(p) + "-uplink", f.uplink_Bps, f.switch_latency_s / 2));

  std::vector<simgrid::kernel::routing::NetPoint*> leaves;
  std::vector<sg4::NetZone*> pods;
  for (std::uint32_t p = 0; p < f.pods; ++p) {
    const std::string pod_name = "pod" + std::to_string(p);
    sg4::NetZone* pod = sg4::create_full_zone(pod_name);
    pod->set_parent(root);
    const std::uint32_t first = p * f.pod_nodes;
    const std::uint32_t last = std::min(spec.nodes, first + f.pod_nodes);
    std::vector<BuiltNode> nodes;
    for (std::uint32_t n = first; n < last; ++n)
      nodes.push_back(build_node(spec, f, n, pod, node_links[n]));
    sg4::NetZone* switches = sg4::create_full_zone(pod_name + "-switches");
    switches->set_parent(pod);
    simgrid::kernel::routing::NetPoint* leaf = switches->create_router(pod_name + "-leaf");
    switches->seal();
    // Leaf hop: a switch traversal, never the bottleneck (the NIC links are).
    sg4::Link* leafhop = pod->create_link(pod_name + "-leafhop", f.uplink_Bps * spec.oversubscription);
    leafhop->set_latency(f.switch_latency_s);
    leafhop->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
    for (std::size_t a = 0; a < nodes.size(); ++a) {
      for (std::size_t b = a + 1; b < nodes.size(); ++b)
        pod->add_route(nodes[a].zone->get_netpoint(), nodes[b].zone->get_netpoint(), nodes[a].gateway, nodes[b].gateway,
                       {{leafhop, Direction::NONE}});
      pod->add_route(nodes[a].zone->get_netpoint(), switches->get_netpoint(), nodes[a].gateway, leaf,
                     {{leafhop, Direction::NONE}});
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
