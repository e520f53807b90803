#include "platforms/cluster.hpp"

#include "base/user_error.hpp"
#include "platforms/natural_order.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace echo::platforms {

namespace sg4 = simgrid::s4u;

namespace {

// Depth-first declaration order of every zone, so that nodes are numbered as the file lists them.
void number_zones(const sg4::NetZone* zone, std::map<const sg4::NetZone*, std::size_t>& order) {
  order.emplace(zone, order.size());
  for (const sg4::NetZone* child : zone->get_children())
    number_zones(child, order);
}

// A zone property that takes one of two words; absent: the first. Anything else is a mistake
// (`intra="nvlnk"` would otherwise be read as NVLink without a word).
bool second_word(const sg4::NetZone* zone, const char* property, const char* first, const char* second, const std::string& source) {
  const char* value = zone->get_property(property);
  if (value == nullptr || std::string_view(value) == first)
    return false;
  if (std::string_view(value) == second)
    return true;
  throw UserError(source, 0,
                  "zone '" + zone->get_name() + "': property " + property + "=\"" + value + "\" is neither " + first + " nor " + second,
                  std::string("write ") + property + "=\"" + first + "\" or \"" + second + "\" (or leave it out: " + first + ")");
}

LinkKind intra_kind_of(const sg4::NetZone* zone, const std::string& source) {
  return second_word(zone, "intra", "nvlink", "pcie", source) ? LinkKind::pcie : LinkKind::nvlink;
}

bool has_nvswitch(const sg4::NetZone* zone, const std::string& source) { return second_word(zone, "nvswitch", "no", "yes", source); }

const sg4::Link* bottleneck(const std::vector<sg4::Link*>& links) {
  const sg4::Link* slowest = nullptr;
  for (const sg4::Link* link : links)
    if (slowest == nullptr || link->get_bandwidth() < slowest->get_bandwidth())
      slowest = link;
  return slowest;
}

} // namespace

Cluster::Cluster(const sg4::Engine& engine, std::string source) : source_(std::move(source)) {
  std::map<const sg4::NetZone*, std::size_t> zone_order;
  number_zones(engine.get_netzone_root(), zone_order);

  const char* homogeneous = engine.get_netzone_root()->get_property("homogeneous");
  homogeneous_ = homogeneous != nullptr && std::string_view(homogeneous) == "yes";
  if (const auto* props = engine.get_netzone_root()->get_properties())
    for (const auto& [key, value] : *props)
      properties_.emplace(key, value);

  // A node is the zone that holds its GPUs, or, where GPUs carry the property `node` (generated
  // presets: one zone per pod), the GPUs of one zone that name the same node.
  struct NodeKey {
    std::size_t zone;
    std::string name;  // empty: the zone is the node
    bool operator<(const NodeKey& o) const {
      return zone != o.zone ? zone < o.zone : natural_less(name, o.name);
    }
  };
  std::map<NodeKey, std::vector<sg4::Host*>> hosts_by_node;
  for (sg4::Host* host : engine.get_all_hosts())
    if (host->get_property("gpu") != nullptr) {
      const char* node = host->get_property("node");
      hosts_by_node[{zone_order.at(host->get_englobing_zone()), node != nullptr ? node : ""}].push_back(host);
    }

  if (hosts_by_node.empty())
    throw UserError(source_, 0, "the platform has no GPU: no host carries the property `gpu`",
                    "mark each GPU host with <prop id=\"gpu\" value=\"MODEL\"/>, or use a preset "
                    "(platform: {preset: dgx-a100, nodes: 2})");

  for (auto& [key, hosts] : hosts_by_node) {
    std::sort(hosts.begin(), hosts.end(), [](const sg4::Host* a, const sg4::Host* b) {
      return natural_less(a->get_name(), b->get_name());
    });
    Node node;
    const sg4::NetZone* zone = hosts.front()->get_englobing_zone();
    node.intra = intra_kind_of(zone, source_);
    node.nvswitch = has_nvswitch(zone, source_);
    if (key.name.empty()) {
      node.name = zone->get_name();
      const auto parent = zone_order.find(zone->get_parent());  // the root zone has no parent we know
      node.group = parent != zone_order.end() ? static_cast<std::uint32_t>(parent->second) : 0;
    } else {
      node.name = key.name;
      node.group = static_cast<std::uint32_t>(key.zone);
    }
    for (sg4::Host* host : hosts) {
      node.gpus.push_back(static_cast<std::uint32_t>(gpus_.size()));
      gpus_.push_back(Gpu{host, static_cast<std::uint32_t>(nodes_.size()),
                          static_cast<std::uint32_t>(node.gpus.size() - 1), host->get_property("gpu")});
    }
    if (auto& first = group_nodes_[node.group]; first.size() < 2)
      first.push_back(static_cast<std::uint32_t>(nodes_.size()));
    ++group_size_[node.group];
    nodes_.push_back(std::move(node));
  }
}

std::uint64_t Cluster::cache_key(std::uint32_t src, std::uint32_t dst) const {
  if (!homogeneous_)
    return (static_cast<std::uint64_t>(src) << 32) | dst;
  const Gpu& a = gpus_[src];
  const Gpu& b = gpus_[dst];
  const std::uint64_t relation = a.node == b.node ? 0 : nodes_[a.node].group == nodes_[b.node].group ? 1 : 2;
  return (relation << 48) | (static_cast<std::uint64_t>(a.local) << 24) | b.local;
}

Route Cluster::route(std::uint32_t src, std::uint32_t dst) const {
  const std::uint64_t key = cache_key(src, dst);
  if (auto it = route_cache_.find(key); it != route_cache_.end())
    return it->second;
  Route r = compute_route(src, dst);
  route_cache_.emplace(key, r);
  return r;
}

Route Cluster::compute_route(std::uint32_t src, std::uint32_t dst) const {
  const Gpu& a = gpus_.at(src);
  const Gpu& b = gpus_.at(dst);
  std::vector<sg4::Link*> links;
  double latency_s = 0.0;
  a.host->route_to(b.host, links, &latency_s);

  Route r;
  r.latency_s = latency_s;
  r.bandwidth_Bps = std::numeric_limits<double>::infinity();
  for (const sg4::Link* link : links)
    r.bandwidth_Bps = std::min(r.bandwidth_Bps, link->get_bandwidth());
  if (links.empty())
    throw UserError(source_, 0,
                    "the platform has no links between GPUs " + a.host->get_name() + " and " +
                        b.host->get_name() + ", so no time can be given to a transfer between them",
                    "declare a route with at least one link between these hosts");
  r.kind = (a.node == b.node) ? nodes_[a.node].intra : LinkKind::network;
  if (nodes_[a.node].group != nodes_[b.node].group)
    r.group_exit_Bps = group_exit_Bps(a, b, links);
  return r;
}

// The links a route between two nodes of one group takes (NICs, the leaf switch) are not the
// group's way out; of the links left, the slowest one that its flows share is. A group of a single
// node has no such route to tell its node's own links apart, so nothing is claimed for it (0).
double Cluster::group_exit_Bps(const Gpu& src, const Gpu& dst, const std::vector<sg4::Link*>& links) const {
  std::set<const sg4::Link*> inside;
  for (const bool leaving : {true, false}) {  // src's way out of its node, then dst's way in
    const Gpu& end = leaving ? src : dst;
    const std::vector<std::uint32_t>& members = group_nodes_.at(nodes_[end.node].group);
    if (members.size() < 2)
      return 0.0;
    const sg4::Host* neighbour = gpus_[nodes_[members[0] == end.node ? members[1] : members[0]].gpus.front()].host;
    std::vector<sg4::Link*> local;
    double latency_s = 0.0;
    if (leaving)
      end.host->route_to(neighbour, local, &latency_s);
    else
      neighbour->route_to(end.host, local, &latency_s);
    inside.insert(local.begin(), local.end());
  }
  double exit_Bps = 0.0;
  for (const sg4::Link* link : links)
    if (!inside.contains(link) && link->get_sharing_policy() != sg4::Link::SharingPolicy::FATPIPE)
      exit_Bps = exit_Bps == 0.0 ? link->get_bandwidth() : std::min(exit_Bps, link->get_bandwidth());
  return exit_Bps;
}

} // namespace echo::platforms

namespace echo::platforms {

bool Cluster::group_exit_narrower_than_nics(std::uint32_t group, double exit_Bps) const {
  if (exit_Bps <= 0.0 || !group_size_.contains(group))
    return false;
  auto [it, fresh] = group_nics_Bps_.try_emplace(group, 0.0);
  if (fresh) {
    if (homogeneous_) {
      const NodeNetwork n = node_network(0);
      it->second = n.nics * n.nic_Bps * group_size_.at(group);
    } else {
      for (std::uint32_t node = 0; node < nodes_.size(); ++node)
        if (nodes_[node].group == group) {
          const NodeNetwork n = node_network(node);
          it->second += n.nics * n.nic_Bps;
        }
    }
  }
  return exit_Bps < it->second * (1.0 - 1e-9);
}

std::uint32_t Cluster::nic_of(std::uint32_t gpu) const {
  const Gpu& g = gpus_.at(gpu);
  const NodeNetwork n = node_network(g.node);
  return g.local < n.nic_of_local.size() ? n.nic_of_local[g.local] : 0;
}

std::string Cluster::property(std::string_view key) const {
  auto it = properties_.find(key);
  return it == properties_.end() ? std::string() : it->second;
}

NodeNetwork Cluster::node_network(std::uint32_t node) const {
  const std::uint32_t key = homogeneous_ ? 0 : node;
  if (auto it = network_cache_.find(key); it != network_cache_.end())
    return it->second;
  NodeNetwork n = compute_node_network(homogeneous_ ? 0 : node);
  network_cache_.emplace(key, n);
  return n;
}

NodeNetwork Cluster::compute_node_network(std::uint32_t node) const {
  NodeNetwork n;
  n.nvswitch = nodes_.at(node).nvswitch;
  n.gpus = static_cast<std::uint32_t>(nodes_.at(node).gpus.size());
  const std::uint32_t other = node == 0 ? 1 : 0;
  if (nodes_.size() < 2)
    return n;
  // A GPU's NIC is the slowest link of its way out of the node. The slowest of a whole route can
  // as well be the peer's NIC (as fast as ours: which of the two SimGrid lists first depends on
  // how the zones nest — with a pod per node, every GPU of a node came out on the peer's one NIC).
  // So only links on the GPU's routes to two peers on different NICs count: the peers' NICs drop
  // out, the GPU's own stays.
  const std::uint32_t peer = nodes_[other].gpus.front(), far_peer = nodes_[other].gpus.back();
  std::vector<const sg4::Link*> nics;  // in order of first use
  for (std::uint32_t gpu : nodes_[node].gpus) {
    std::vector<sg4::Link*> links, far_links;
    double latency_s = 0.0;
    gpus_[gpu].host->route_to(gpus_[peer].host, links, &latency_s);
    if (far_peer != peer) {
      gpus_[gpu].host->route_to(gpus_[far_peer].host, far_links, &latency_s);
      std::vector<sg4::Link*> common;
      for (sg4::Link* link : links)
        if (std::find(far_links.begin(), far_links.end(), link) != far_links.end())
          common.push_back(link);
      if (!common.empty())
        links = std::move(common);
    }
    const sg4::Link* nic = bottleneck(links);
    auto it = std::find(nics.begin(), nics.end(), nic);
    n.nic_of_local.push_back(static_cast<std::uint32_t>(it - nics.begin()));
    if (it == nics.end())
      nics.push_back(nic);
    if (nic != nullptr)
      n.nic_Bps = std::max(n.nic_Bps, nic->get_bandwidth());
  }
  n.nics = static_cast<std::uint32_t>(nics.size());
  return n;
}

} // namespace echo::platforms
