#include "collectives/pipeline_unit.hpp"

#include <algorithm>

namespace echo::collectives {

std::uint64_t pipeline_unit_bytes(Protocol protocol, std::uint64_t bytes, std::uint32_t channels) {
  // A warp's worth of flagged data for LL and LL128: 32 threads x 8 bytes, less LL128's flag
  // word in every 16 (LL flags every word, but its flags ride in a separate half of the line).
  constexpr std::uint64_t kWarpLL = 32 * 8, kWarpLL128 = 32 * 8 * 15 / 16;
  constexpr std::uint64_t kStepSimple = 4 * 1024 * 1024 / 8;
  const std::uint64_t unit = protocol == Protocol::ll ? kWarpLL : protocol == Protocol::ll128 ? kWarpLL128 : kStepSimple;
  const std::uint64_t per_channel = (bytes + channels - 1) / std::max(1u, channels);
  return std::max<std::uint64_t>(1, std::min(unit, per_channel));
}

double pipeline_unit_s(const PlannedCall& p) {
  const std::uint64_t unit = pipeline_unit_bytes(p.costs.protocol, p.call.bytes, p.costs.channels);
  return static_cast<double>(unit) * p.costs.channels / p.costs.algorithm_Bps;
}

} // namespace echo::collectives
