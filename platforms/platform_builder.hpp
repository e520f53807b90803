#pragma once
// Builds a preset cluster in the SimGrid engine directly (s4u's zone API), the same platform
// write_platform_xml() describes, without an XML file: SimGrid's parser resolves every link of
// every route by name through the zone tree, which grows with the square of the node count
// (1,250 nodes took 9 s), while the API hands it the links themselves.
#include "platforms/cluster_spec.hpp"

#include <simgrid/s4u/Engine.hpp>

namespace echo::platforms {

void build_platform(simgrid::s4u::Engine& engine, const ClusterSpec& spec);

} // namespace echo::platforms
