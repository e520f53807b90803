#pragma once
// A what-if latency that cannot move the result says why. The collective model times a hop with
// NCCL's per-hop latency for the algorithm and protocol, or with the route's own latency where
// that is slower; a NIC or switch latency lowered until the route between nodes is faster than
// NCCL's smallest figure therefore changes no collective, and a run that asked for it should not
// leave the user guessing why nothing moved.
#include "platforms/cluster.hpp"
#include "platforms/platform_loader.hpp"

#include <optional>
#include <string>

namespace echo::core {

// A note for the run when a preset's nic_latency or switch_latency was changed and the change
// cannot reach the collectives (one node only, or a route below NCCL's floor); none otherwise.
std::optional<std::string> latency_floor_note(const platforms::PlatformSource& platform, const platforms::Cluster& cluster);

} // namespace echo::core
