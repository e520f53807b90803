#pragma once
// `steps`: each step of a schedule is timed as its members and data get there, and calls running
// at the same time share links (LinkLoad; DESIGN.md: a step costs latency + bytes / (bandwidth /
// sharers)). A step that another open call may meet on its links is held until simulated time
// reaches its start; the step clock (a daemon) then times it with the sharers of that instant.
// Steps no other call can meet are timed at once, exactly as if alone.
#include "core/network/network_model.hpp"

namespace echo::core::network {

std::unique_ptr<NetworkModel> make_shared_steps_model(const NetworkContext& context);

} // namespace echo::core::network
