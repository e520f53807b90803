#include "collectives/calibration.hpp"

#include "base/user_error.hpp"
#include "collectives/nccl_constants.hpp"
#include "platforms/cluster_spec.hpp"

#include <charconv>
#include <string>

namespace echo::collectives {

namespace {

constexpr const char* kKinds[3] = {"nvlink", "pcie", "net"};

double read(const platforms::RouteOracle& platform, const std::string& source, const std::string& key, double fallback,
            double low, double high) {
  const std::string text = platform.property(key);
  if (text.empty())
    return fallback;
  double v = 0.0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < low || v > high)
    throw UserError(source, 0, "platform property `" + key + "` = '" + text + "' is out of range",
                    "give a number in [" + std::to_string(low) + ", " + std::to_string(high) + "]");
  return v;
}

} // namespace

Calibration calibration_of(const platforms::RouteOracle& platform, const std::string& source) {
  Calibration c;
  platforms::gpu_nic_path_value(platform.property("gpu_nic_path"), source);  // refuses what NCCL would not name
  constexpr const char* kProtocols[3] = {"ll", "ll128", "simple"};
  for (int p = 0; p < 3; ++p)
    c.extra_base_us[p] = read(platform, source, std::string("nccl.extra_base_us.") + kProtocols[p], 0.0, -1e3, 1e6);
  for (int k = 0; k < 3; ++k) {
    c.extra_hop_us[k] = read(platform, source, std::string("nccl.extra_hop_us.") + kKinds[k], 0.0, -1e3, 1e6);
    c.efficiency[k] = read(platform, source, std::string("nccl.efficiency.") + kKinds[k], 1.0, 1e-6, 1.0);
    c.p2p_channel_GBps[k] = read(platform, source, std::string("nccl.p2p_channel_bw.") + kKinds[k], 0.0, 0.0, 1e5);
  }
  c.coll_channel_net_GBps = read(platform, source, "nccl.coll_channel_bw.net", 0.0, 0.0, 1e5);
  c.net_overhead_us = read(platform, source, "nccl.net_overhead_us", nccl::kNetOverheadIntelUs, 0.0, 1e4);
  c.ring_tail_copy_GBps = read(platform, source, "nccl.tail_copy_bw.ring", 0.0, 0.0, 1e5);
  c.p2p_peer_net_us = read(platform, source, "nccl.p2p_peer_us.net", 0.0, 0.0, 1e4);
  c.ll_efficiency = read(platform, source, "nccl.efficiency.ll", 1.0, 1e-6, 1.0);
  c.ll128_efficiency = read(platform, source, "nccl.efficiency.ll128", 1.0, 1e-6, 1.0);
  c.nvls_efficiency = read(platform, source, "nccl.efficiency.nvls", 1.0, 1e-6, 1.0);
  c.nvls_tree_efficiency = read(platform, source, "nccl.efficiency.nvls_tree", c.nvls_efficiency, 1e-6, 1.0);
  c.all_to_all_efficiency = read(platform, source, "nccl.efficiency.all_to_all", 1.0, 1e-6, 1.0);
  c.all_to_all_nvlink_efficiency = read(platform, source, "nccl.efficiency.all_to_all_nvlink", 1.0, 1e-6, 1.0);
  // Not a calibration: what NCCL's tuner believes of the network (comm_shape.hpp reads it); checked here.
  read(platform, source, "nccl.net_device_latency_us", 0.0, 0.0, 1e4);
  return c;
}

} // namespace echo::collectives
