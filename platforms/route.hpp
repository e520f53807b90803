#pragma once
// Route: what the collective model needs to know about the path between two GPUs, and the
// RouteOracle interface that answers it. Collectives depend on this interface only, so their
// schedules can be unit-tested with a hand-made oracle and no SimGrid platform.
#include <cstdint>
#include <string_view>

namespace echo::platforms {

enum class LinkKind { nvlink, pcie, network };

std::string_view to_string(LinkKind kind);

struct Route {
  double latency_s = 0.0;      // sum of the latencies of the links on the route
  double bandwidth_Bps = 0.0;  // bottleneck: the slowest link of the route
  LinkKind kind = LinkKind::network;
  bool intra_node() const { return kind != LinkKind::network; }
};

class RouteOracle {
public:
  virtual ~RouteOracle() = default;
  // Route from GPU `src` to GPU `dst` (indices in rank order). src != dst.
  virtual Route route(std::uint32_t src, std::uint32_t dst) const = 0;
  virtual std::uint32_t gpu_count() const = 0;
};

} // namespace echo::platforms
