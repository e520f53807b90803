#pragma once
// What `echo-des platform info` shows: a platform's GPU index and sample routes, so a user can
// check that echo-des reads their XML the way they meant it. Creates its own SimGrid engine (one
// per process, like a simulation).
#include "platforms/platform_loader.hpp"
#include "platforms/route.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace echo::platforms {

struct PlatformReport {
  std::string description;
  std::uint32_t gpus = 0;
  struct NodeLine {
    std::string name;
    std::uint32_t first_gpu = 0, gpu_count = 0;
    std::string model;
    LinkKind intra = LinkKind::nvlink;
  };
  std::vector<NodeLine> nodes;
  struct RouteLine {
    std::uint32_t src = 0, dst = 0;
    std::string src_host, dst_host;
    Route route;
  };
  std::vector<RouteLine> routes;
  double load_s = 0.0;
};

// Loads the platform and answers the given GPU pairs; with no pairs, a few telling ones (next GPU
// in the node, first GPU of the next node, of the last node). Throws UserError for bad pairs.
PlatformReport inspect_platform(const PlatformSource& source,
                                const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs);

} // namespace echo::platforms
