#include "collectives/comm_shape.hpp"

#include <algorithm>
#include <charconv>
#include <map>

namespace echo::collectives {

CommShape comm_shape(const std::vector<std::uint32_t>& gpus, const platforms::RouteOracle& platform) {
  CommShape s;
  s.ranks = static_cast<std::uint32_t>(gpus.size());
  if (gpus.empty())
    return s;
  s.arch = arch_from_gpu_model(platform.gpu_model(gpus.front()));
  s.amd_cpu = platform.property("cpu") == "amd";
  const std::string nic_path = platform.property("gpu_nic_path");
  s.nic_past_switches = nic_path == "phb" || nic_path == "sys";
  // Checked by calibration_of (collectives/calibration.cpp), which every run reads first.
  const std::string device_latency = platform.property("nccl.net_device_latency_us");
  if (!device_latency.empty())
    std::from_chars(device_latency.data(), device_latency.data() + device_latency.size(), s.net_device_latency_us);
  std::map<std::uint32_t, std::uint32_t> first_on_node;  // node -> a member GPU on it
  std::map<std::uint32_t, std::uint32_t> per_node;
  bool have_intra = false;
  for (std::uint32_t gpu : gpus) {
    const std::uint32_t node = platform.node_of(gpu);
    s.ppn = std::max(s.ppn, ++per_node[node]);
    auto [it, fresh] = first_on_node.emplace(node, gpu);
    if (!fresh && !have_intra) {
      const platforms::Route r = platform.route(it->second, gpu);
      s.intra = r.kind == platforms::LinkKind::pcie ? platforms::LinkKind::pcie : platforms::LinkKind::nvlink;
      s.intra_GBps = r.bandwidth_Bps / 1e9;
      s.intra_latency_s = r.latency_s;
      have_intra = true;
    }
  }
  s.nodes = static_cast<std::uint32_t>(per_node.size());
  const std::uint32_t first_node = first_on_node.begin()->first;
  const platforms::NodeNetwork net = platform.node_network(first_node);
  s.nvswitch = net.nvswitch;
  if (s.nodes > 1) {
    const std::uint32_t a = first_on_node.begin()->second;
    const std::uint32_t b = std::next(first_on_node.begin())->second;
    const platforms::Route r = platform.route(a, b);
    s.net_latency_s = r.latency_s;
    // A node's members reach the NICs of their own GPUs: on a rail-optimised node with one NIC
    // per GPU, a communicator with one GPU per node has one NIC per node to itself.
    std::vector<std::uint32_t> used;
    for (std::uint32_t gpu : gpus)
      if (platform.node_of(gpu) == first_node) {
        const std::uint32_t nic = platform.nic_of(gpu);
        if (std::find(used.begin(), used.end(), nic) == used.end())
          used.push_back(nic);
      }
    s.nics = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(used.size()));
    s.nic_GBps = (net.nic_Bps > 0 ? net.nic_Bps : r.bandwidth_Bps) / 1e9;
  }
  return s;
}

} // namespace echo::collectives
