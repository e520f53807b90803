#pragma once
// A platform made in memory for collective tests: `nodes` nodes of `gpus_per_node` GPUs, every
// pair inside a node joined by one route kind, every pair across nodes by the network through
// the GPUs' NICs (GPU g of a node uses NIC g * nics / gpus_per_node); with `nodes_per_group`, nodes
// form groups (pods) of that many whose routes between them also leave through a way out of
// `group_exit_Bps`. No SimGrid.
#include "platforms/route.hpp"

#include <map>
#include <string>

namespace echo::test {

struct FakePlatform final : platforms::RouteOracle {
  std::uint32_t nodes = 1, gpus_per_node = 8;
  std::string model = "A100-SXM4-80GB";
  platforms::LinkKind intra_kind = platforms::LinkKind::nvlink;
  double intra_Bps = 240e9, intra_latency_s = 0.7e-6;
  double nic_Bps = 25e9, net_latency_s = 2e-6;
  std::uint32_t nics = 8;
  bool nvswitch = true;
  std::uint32_t nodes_per_group = 0;  // 0: one group
  double group_exit_Bps = 0.0;
  std::map<std::string, std::string, std::less<>> properties;

  platforms::Route route(std::uint32_t a, std::uint32_t b) const override {
    if (node_of(a) == node_of(b))
      return {intra_latency_s, intra_Bps, intra_kind};
    platforms::Route r{net_latency_s, nic_Bps, platforms::LinkKind::network};
    if (group_of(node_of(a)) != group_of(node_of(b)))
      r.group_exit_Bps = group_exit_Bps;
    return r;
  }
  std::uint32_t group_of(std::uint32_t node) const override { return nodes_per_group > 0 ? node / nodes_per_group : 0; }
  std::uint32_t gpu_count() const override { return nodes * gpus_per_node; }
  std::uint32_t node_of(std::uint32_t gpu) const override { return gpu / gpus_per_node; }
  std::string_view gpu_model(std::uint32_t) const override { return model; }
  platforms::NodeNetwork node_network(std::uint32_t) const override {
    platforms::NodeNetwork n{nodes > 1 ? nics : 0, nodes > 1 ? nic_Bps : 0.0, nvswitch, gpus_per_node, {}};
    for (std::uint32_t g = 0; g < gpus_per_node; ++g)
      n.nic_of_local.push_back(g * nics / gpus_per_node);
    return n;
  }
  std::uint32_t nic_of(std::uint32_t gpu) const override { return nodes > 1 ? node_network(0).nic_of_local[gpu % gpus_per_node] : 0; }
  std::string property(std::string_view key) const override {
    auto it = properties.find(key);
    return it == properties.end() ? std::string() : it->second;
  }
};

// One node of `n` identical GPUs joined by `kind` links of the given latency and bandwidth.
inline FakePlatform one_node(std::uint32_t n, double latency_s, double bandwidth_Bps,
                             platforms::LinkKind kind = platforms::LinkKind::nvlink) {
  FakePlatform p;
  p.gpus_per_node = n;
  p.intra_latency_s = latency_s;
  p.intra_Bps = bandwidth_Bps;
  p.intra_kind = kind;
  return p;
}

} // namespace echo::test
