#pragma once
// Which NCCL release a job runs: what the model knows of NCCL differs by release in which
// algorithms exist (from NCCL's own sources: NCCL_ALGO_NVLS appears in 2.17, NCCL_ALGO_NVLS_TREE in
// 2.18, NCCL_ALGO_PAT in 2.23), in the tuning constants that choose among them
// (nccl_release_tuning.hpp) and in the p2p channels a peer gets (p2p_channels.hpp). The default is
// the newest release the model was read from.
#include "collectives/nccl_vocabulary.hpp"

#include <optional>
#include <string>

namespace echo::collectives {

struct NcclVersion {
  int major = 2, minor = 29;
  auto operator<=>(const NcclVersion&) const = default;
  std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
};

inline constexpr NcclVersion kOldestNccl{2, 12}, kNewestNccl{2, 29};

// "2.18", "2.18.3" or "2.18.3-1" (the patch and build are not told apart); nullopt when not a
// release between kOldestNccl and kNewestNccl.
std::optional<NcclVersion> parse_nccl_version(const std::string& text);
// "2.12 to 2.29", for messages.
std::string known_nccl_versions();

// Empty if `version` has the algorithm, else why not ("NVLSTree needs NCCL 2.18 or newer").
std::string missing_in(NcclAlgo algo, NcclVersion version);

} // namespace echo::collectives
