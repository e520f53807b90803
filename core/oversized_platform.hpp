#pragma once
// A preset far larger than the job: a 16-rank trace on `nodes: 100000` would spend minutes and
// gigabytes building GPUs that cannot change its result (rank r runs on GPU r; the others idle).
// Refused before anything is built, with the estimate and the size that holds the job.
#include "platforms/platform_loader.hpp"

#include <cstdint>
#include <string>

namespace echo::core {

// Throws UserError when `platform` is a preset of more than kQuickPlatformNodes nodes and more
// than twice the nodes `ranks` need; `origin` names the job for the message.
void refuse_oversized_platform(const platforms::PlatformSource& platform, std::uint32_t ranks, const std::string& origin);

// Presets up to this size build in well under a second (bench/platform.sh: 1,250 nodes 0.4 s).
inline constexpr std::uint32_t kQuickPlatformNodes = 1250;

} // namespace echo::core
