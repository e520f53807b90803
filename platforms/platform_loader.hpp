#pragma once
// Loads a platform into a SimGrid engine: a user's XML file or a generated preset cluster.
// SimGrid's own parse errors come back as UserError naming the file and line.
#include "platforms/cluster_spec.hpp"

#include <optional>
#include <string>

namespace simgrid::s4u {
class Engine;
}

namespace echo::platforms {

struct PlatformSource {
  std::string file;                 // a SimGrid platform XML file, or
  std::optional<ClusterSpec> spec;  // a generated cluster
  // One line for summaries: the file name, or "dgx-h100 x 16 nodes (nic_bw=...)".
  std::string describe() const;
};

void load_platform(simgrid::s4u::Engine& engine, const PlatformSource& source);

} // namespace echo::platforms
