#include "core/oversized_platform.hpp"

#include "base/user_error.hpp"

#include <cstdio>

namespace echo::core {

void refuse_oversized_platform(const platforms::PlatformSource& platform, std::uint32_t ranks, const std::string& origin) {
  if (!platform.spec || ranks == 0)
    return;
  const platforms::ClusterSpec& spec = *platform.spec;
  const std::uint64_t per_node = spec.gpus_per_node > 0 ? spec.gpus_per_node : 1;
  const std::uint64_t needed = (ranks + per_node - 1) / per_node;
  if (spec.nodes <= kQuickPlatformNodes || spec.nodes <= 2 * needed)
    return;
  // Measured (bench/platform.sh): 12,500 nodes build in 14.9 s and 696 MB; it grows faster than
  // the node count, so this is a lower bound.
  const double seconds = 14.9 * spec.nodes / 12500.0, gigabytes = 0.696 * spec.nodes / 12500.0;
  char cost[128];
  std::snprintf(cost, sizeof cost, "at least %.0f s and %.1f GB", seconds, gigabytes);
  throw UserError(origin, 0,
                  "the platform has " + std::to_string(spec.nodes) + " nodes, but the job's " + std::to_string(ranks) +
                      " ranks use only the first " + std::to_string(needed) + " (rank r runs on GPU r); building the others would take " +
                      cost + " and cannot change the result",
                  "set platform.nodes to " + std::to_string(needed) + " (or up to " + std::to_string(kQuickPlatformNodes) +
                      " nodes if the idle GPUs should be counted)");
}

} // namespace echo::core
