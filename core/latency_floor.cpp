#include "core/latency_floor.hpp"

#include "collectives/nccl_constants.hpp"
#include "platforms/cluster_spec.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <tuple>

namespace echo::core {

namespace {

// NCCL's smallest per-hop latency over the network, any algorithm and protocol (us).
double nccl_network_floor_us() {
  double floor = std::numeric_limits<double>::infinity();
  for (const auto& algorithm : collectives::nccl::kHwLatency[collectives::nccl::kNet])
    for (double us : algorithm)
      if (us > 0)
        floor = std::min(floor, us);
  return floor;
}

} // namespace

std::optional<std::string> latency_floor_note(const platforms::PlatformSource& platform, const platforms::Cluster& cluster) {
  if (!platform.spec)
    return std::nullopt;
  const platforms::ClusterSpec& spec = *platform.spec;
  const platforms::ClusterSpec preset = platforms::preset(spec.preset, spec.nodes);
  std::string changed;
  for (const auto& [name, value, default_value] : {std::tuple{"nic_latency", spec.nic_latency, preset.nic_latency},
                                                   std::tuple{"switch_latency", spec.switch_latency, preset.switch_latency}})
    if (value != default_value)
      changed += (changed.empty() ? "" : " and ") + std::string(name) + " " + value;
  if (changed.empty())
    return std::nullopt;
  if (cluster.nodes().size() < 2)
    return changed + ": the platform has one node, so no route crosses a NIC or a switch and the change moves nothing";
  const double route_us = cluster.route(cluster.nodes()[0].gpus.front(), cluster.nodes()[1].gpus.front()).latency_s * 1e6, floor_us = nccl_network_floor_us();
  if (route_us >= floor_us)
    return std::nullopt;
  char text[512];
  std::snprintf(text, sizeof text,
                ": the route between nodes takes %.2f us one way, below NCCL's smallest per-hop network latency "
                "(%.1f us); collectives time a hop with NCCL's figure where the route is faster, so the change moves "
                "no collective (send/recv hops use NCCL's figure always)",
                route_us, floor_us);
  return changed + text;
}

} // namespace echo::core
