#include "collectives/pipeline_unit.hpp"

#include "collectives/nccl_constants.hpp"

#include <algorithm>

namespace echo::collectives {

std::uint64_t pipeline_unit_bytes(Protocol protocol, bool tree, const CommShape& shape, std::uint64_t bytes,
                                  std::uint32_t channels) {
  constexpr std::uint64_t kLLWarpLines = 32;
  constexpr std::uint64_t kStepSimple = 4 * 1024 * 1024 / 8, kStepLL128 = 4915200 / 8;
  std::uint64_t chunk = kStepSimple;
  if (protocol == Protocol::ll)
    chunk = kLLWarpLines * 8;  // LL flags every 8-byte word: a warp passes its lines on as they land
  if (protocol == Protocol::ll128) {
    chunk = kStepLL128 / 16 * 15;
    if (tree) {
      const double ppn = static_cast<double>(shape.ranks) / shape.nodes;
      const double steps = 1 + nccl::log2i(shape.nodes) + 0.1 * ppn;
      while (static_cast<double>(bytes / (channels * chunk)) < steps * 64 / ppn && chunk > 131072)
        chunk /= 2;
      while (static_cast<double>(bytes / (channels * chunk)) < steps * 16 / ppn && chunk > 32768)
        chunk /= 2;
    }
  }
  const std::uint64_t per_channel = (bytes + channels - 1) / std::max(1u, channels);
  return std::max<std::uint64_t>(1, std::min(chunk, per_channel));
}

double pipeline_unit_s(const PlannedCall& p, bool tree) {
  const std::uint64_t unit = pipeline_unit_bytes(p.costs.protocol, tree, p.shape, p.call.bytes, p.costs.channels);
  return static_cast<double>(unit) * p.costs.channels / p.costs.algorithm_Bps;
}

} // namespace echo::collectives
