#pragma once
// NCCL_MIN_CTAS / NCCL_MAX_CTAS (ncclConfig_t's minCTAs / maxCTAs): bounds on the CTAs, that is
// the channels, NCCL runs a communicator's collectives on. NCCL 2.29's set-up
// (src/graph/connect.cc, ncclTopoPostset) cuts the ring channels to the maximum and then copies
// them up to the minimum; NVLS clamps its own channels to [min, max] (src/transport/nvls.cc).
// A minimum above the maximum becomes the maximum (src/init.cc), both at most MAXCHANNELS.
#include <algorithm>
#include <cstdint>

namespace echo::collectives {

struct CtaLimits {
  static constexpr std::uint32_t kMaxChannels = 64;  // MAXCHANNELS
  std::uint32_t min = 1, max = kMaxChannels;

  std::uint32_t clamp(std::uint32_t channels) const {
    const std::uint32_t hi = std::min(max, kMaxChannels);
    return std::max(std::min(min, hi), std::min(hi, channels));
  }
  bool is_default() const { return min == 1 && max == kMaxChannels; }
};

} // namespace echo::collectives
