#pragma once
// `steps`: each step of a schedule is timed as its members and data get there, and calls running
// at the same time share links (LinkLoad; DESIGN.md: a step costs latency + bytes / (bandwidth /
// sharers)). A step that another open call may meet on its links — or that leaves through a NIC
// other GPUs use too, where a call may open at the step's very start — is held until simulated
// time reaches its start; the step clock (a daemon) then times it together with the held steps
// that start at the same instant, sharing its links with them and, over its whole way, with the
// steps booked on them (LinkLoad::shared_end). Steps no other call can meet are timed at once,
// exactly as if alone.
#include "core/network/network_model.hpp"

namespace echo::core::network {

std::unique_ptr<NetworkModel> make_shared_steps_model(const NetworkContext& context);

} // namespace echo::core::network
