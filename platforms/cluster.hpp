#pragma once
// Cluster: the GPU index of a SimGrid platform loaded into an engine, and route queries between
// GPUs. A GPU is a host with the property `gpu` (its value names the GPU model); the netzone that
// directly holds a GPU is its node, unless the GPU carries the property `node` (generated presets:
// a zone per pod), which names its node inside that zone. Rank order is node order (depth-first
// declaration order of the zones, then node names in natural order) then GPU order inside the node
// (host names in natural order: gpu2 before gpu10). A node's `intra` / `nvswitch` properties are
// its zone's.
//
// Routes are asked for lazily and cached. On a platform whose root zone carries the property
// homogeneous="yes" (every generated preset does), all nodes are alike and so are all groups of
// nodes under one parent zone (a pod), so a route depends only on its *pair class*: the two GPUs'
// local indices and whether they share the node, share the pod, or neither. One SimGrid route
// query per class serves all 8,192 GPUs. Elsewhere the cache is per GPU pair; collectives ask only
// for the pairs they use (ring neighbours), so it grows with ranks, not ranks squared.
#include "platforms/route.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace simgrid::s4u {
class Engine;
class Host;
class Link;
class NetZone;
} // namespace simgrid::s4u

namespace echo::platforms {

struct Gpu {
  simgrid::s4u::Host* host = nullptr;
  std::uint32_t node = 0;   // index into Cluster::nodes()
  std::uint32_t local = 0;  // index inside the node
  std::string model;        // value of the `gpu` property
};

struct Node {
  std::string name;             // the netzone's name, or the GPUs' `node` property
  std::uint32_t group = 0;      // index of the zone holding the node (a pod), for pair classes
  LinkKind intra = LinkKind::nvlink;  // zone property `intra` = nvlink | pcie
  bool nvswitch = false;              // zone property `nvswitch` = yes
  std::vector<std::uint32_t> gpus;
};

class Cluster final : public RouteOracle {
public:
  // Indexes the GPUs of the platform already loaded in `engine`. `source` names the platform in
  // error messages. Throws UserError when the platform holds no GPU.
  Cluster(const simgrid::s4u::Engine& engine, std::string source);

  Route route(std::uint32_t src, std::uint32_t dst) const override;
  std::uint32_t gpu_count() const override { return static_cast<std::uint32_t>(gpus_.size()); }
  std::uint32_t node_of(std::uint32_t gpu) const override { return gpus_.at(gpu).node; }
  std::string_view gpu_model(std::uint32_t gpu) const override { return gpus_.at(gpu).model; }
  // NICs are told apart by the bottleneck link of each GPU's route out of the node: GPUs that
  // leave through the same link share a NIC. Asked once per node (once in all on homogeneous
  // platforms) and cached.
  NodeNetwork node_network(std::uint32_t node) const override;
  std::uint32_t nic_of(std::uint32_t gpu) const override;
  std::uint32_t group_of(std::uint32_t node) const override { return nodes_.at(node).group; }
  std::string property(std::string_view key) const override;
  // Whether a group's way out to other groups (Route::group_exit_Bps) is narrower than the NICs of
  // its nodes together: an oversubscribed pod's up-link, which rings and trees leaving the pod
  // share, not only AllToAlls. False for a group whose routes name no way out (a single node).
  bool group_exit_narrower_than_nics(std::uint32_t group, double exit_Bps) const;

  const std::vector<Gpu>& gpus() const { return gpus_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::string& source() const { return source_; }
  bool homogeneous() const { return homogeneous_; }

  // Asks SimGrid, bypassing the cache (tests compare the two).
  Route compute_route(std::uint32_t src, std::uint32_t dst) const;

private:
  std::uint64_t cache_key(std::uint32_t src, std::uint32_t dst) const;
  NodeNetwork compute_node_network(std::uint32_t node) const;
  double group_exit_Bps(const Gpu& src, const Gpu& dst, const std::vector<simgrid::s4u::Link*>& links) const;

  std::string source_;
  std::vector<Gpu> gpus_;
  std::vector<Node> nodes_;
  std::map<std::uint32_t, std::vector<std::uint32_t>> group_nodes_;  // group -> its first two nodes
  std::map<std::uint32_t, std::uint32_t> group_size_;                 // group -> its nodes
  bool homogeneous_ = false;
  std::map<std::string, std::string, std::less<>> properties_;
  mutable std::unordered_map<std::uint64_t, Route> route_cache_;
  mutable std::unordered_map<std::uint32_t, NodeNetwork> network_cache_;
  mutable std::unordered_map<std::uint32_t, double> group_nics_Bps_;  // group -> its NICs' rates, summed
};

} // namespace echo::platforms
