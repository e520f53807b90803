#pragma once
// Route: what the collective model needs to know about the path between two GPUs, and the
// RouteOracle interface that answers it together with the few facts about the machine that
// NCCL's own topology detection would find (which node a GPU sits in, its model, the node's NICs
// and NVSwitch). Collectives depend on this interface only, so their schedules and cost model
// can be unit-tested with a hand-made oracle and no SimGrid platform.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace echo::platforms {

enum class LinkKind { nvlink, pcie, network };

std::string_view to_string(LinkKind kind);

struct Route {
  double latency_s = 0.0;      // sum of the latencies of the links on the route
  double bandwidth_Bps = 0.0;  // bottleneck: the slowest link of the route
  LinkKind kind = LinkKind::network;
  // Leaving a group of nodes (a pod under one set of leaf switches): the capacity of the slowest
  // shared link the route crosses that routes inside either end's group do not (a pod's spine
  // up-link). Every GPU of a group that sends out of it at once shares that link; 0 where the
  // route stays in one group or the platform has no such link.
  double group_exit_Bps = 0.0;
  bool intra_node() const { return kind != LinkKind::network; }
};

// A node's way out: how many distinct NICs its GPUs leave through, and the bandwidth of one.
struct NodeNetwork {
  std::uint32_t nics = 0;      // 0 on a single-node platform
  double nic_Bps = 0.0;
  bool nvswitch = false;       // GPUs joined by an NVSwitch (zone property nvswitch="yes")
  std::uint32_t gpus = 0;      // GPUs in the node
  std::vector<std::uint32_t> nic_of_local;  // per GPU of the node (local index): its NIC, 0..nics-1
};

class RouteOracle {
public:
  virtual ~RouteOracle() = default;
  // Route from GPU `src` to GPU `dst` (indices in rank order). src != dst.
  virtual Route route(std::uint32_t src, std::uint32_t dst) const = 0;
  virtual std::uint32_t gpu_count() const = 0;
  virtual std::uint32_t node_of(std::uint32_t gpu) const = 0;
  virtual std::string_view gpu_model(std::uint32_t gpu) const = 0;
  virtual NodeNetwork node_network(std::uint32_t node) const = 0;
  // The NIC (index within its node) GPU `gpu` leaves its node through; 0 on one node.
  virtual std::uint32_t nic_of(std::uint32_t gpu) const = 0;
  // The group (pod) node `node` belongs to: nodes of one group reach each other without the links
  // that Route::group_exit_Bps describes. One group unless the platform says otherwise.
  virtual std::uint32_t group_of(std::uint32_t /*node*/) const { return 0; }
  // A property of the platform's root zone ("" when absent): where a platform carries the
  // calibrated parameters of the collective model (`nccl.*`).
  virtual std::string property(std::string_view key) const = 0;
};

} // namespace echo::platforms
