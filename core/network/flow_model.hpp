#pragma once
// `flow`: each step becomes SimGrid communications on the routed links, one per rail a step
// across nodes crosses, each capped at the rate of the wire its step's cost gives it and sized to
// take the step's `steps` time alone; SimGrid's flow model (CM02, core/engine_setup.cpp) decides
// how concurrent flows share the links.
#include "core/network/network_model.hpp"

namespace echo::core::network {

std::unique_ptr<NetworkModel> make_flow_model(const NetworkContext& context);

} // namespace echo::core::network
