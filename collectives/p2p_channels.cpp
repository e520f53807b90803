#include "collectives/p2p_channels.hpp"

#include "collectives/channel_search.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace echo::collectives {

namespace {

constexpr std::uint32_t kMaxChannels = 64;       // MAXCHANNELS
constexpr double kNetBwPerChannel_GBps = 14.0;   // NCCL_P2P_PER_CHANNEL_NET_BW (2.29)
constexpr std::uint32_t kPeersPerChannelRound = 8;  // NCCL_MAX_DEV_WORK_P2P_PER_BATCH
constexpr std::uint64_t kNetChunk = 128 << 10;   // NCCL_P2P_NET_CHUNKSIZE
constexpr std::uint64_t kNvlChunk = 512 << 10;   // NCCL_P2P_NVL_CHUNKSIZE
constexpr std::uint64_t kPciChunk = 128 << 10;   // NCCL_P2P_PCI_CHUNKSIZE

std::uint64_t div_up(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// One NVLink's bandwidth per direction, as NCCL's topology counts it (ncclTopoNVLinkBw).
double nvlink_per_link_GBps(Arch arch) {
  switch (arch) {
  case Arch::blackwell: return 40.1;
  case Arch::hopper: return 20.6;
  default: return 20.0;
  }
}

// Channels NCCL would give one peer in the same node (ncclTopoGetNchannels).
std::uint32_t local_peer_channels(const CommShape& s) {
  if (s.intra != platforms::LinkKind::nvlink)
    return 2;
  const auto links = static_cast<std::uint32_t>(std::floor(s.intra_GBps / nvlink_per_link_GBps(s.arch) + 1e-9));
  return 2 * std::max(1u, links);
}

// Channels NCCL would give one peer on another node, before the communicator-wide reductions.
std::uint32_t net_peer_channels(const CommShape& s, NcclVersion v, std::uint32_t p2p) {
  // The GPU's own NICs: one each where the node has one per GPU or more.
  const std::uint32_t nics = std::max(1u, s.nics / std::max(1u, s.ppn));
  if (v < NcclVersion{2, 20})
    return 2;
  if (v < NcclVersion{2, 29}) {
    std::uint32_t most = 2;
    while (most * s.ranks > p2p * 4 && most > 1)
      most /= 2;
    return std::max(nics, most);
  }
  const double net_GBps = s.nic_GBps * nics;
  return std::max(nics, static_cast<std::uint32_t>(std::ceil(net_GBps / kNetBwPerChannel_GBps - 1e-9)));
}

} // namespace

std::uint32_t comm_channels(const CommShape& s, const CtaLimits& limits) {
  const ChannelGraph ring = ring_graph(s);
  std::uint32_t n = std::min(kMaxChannels, 2 * ring.channels);
  // Hopper and newer across nodes: fast rings are doubled once more.
  const bool newer = s.arch == Arch::hopper || s.arch == Arch::blackwell;
  if (newer && s.nodes > 1 && ring.bw_intra_GBps > 45.0 && n < 16)
    n = std::min(kMaxChannels, 2 * n);
  return limits.clamp(n);
}

std::uint32_t p2p_channels(const CommShape& s, const CtaLimits& limits) {
  return std::min(kMaxChannels, std::bit_ceil(comm_channels(s, limits)));
}

std::uint32_t p2p_channels_per_peer(const CommShape& s, NcclVersion v, const CtaLimits& limits) {
  const std::uint32_t p2p = p2p_channels(s, limits);
  std::uint32_t per_peer = s.ppn > 1 ? local_peer_channels(s) : kMaxChannels;
  if (s.nodes > 1)
    per_peer = std::min(per_peer, net_peer_channels(s, v, p2p));
  per_peer = std::min(std::bit_ceil(per_peer), v < NcclVersion{2, 29} ? p2p : kMaxChannels);
  if (v >= NcclVersion{2, 29}) {
    if (s.nodes > 1) {
      // Every peer in one round of the p2p channels, eight peers to a channel.
      while (per_peer * div_up(s.ranks, kPeersPerChannelRound) > p2p && per_peer > 1)
        per_peer /= 2;
    } else {
      per_peer = std::min(per_peer, p2p);
    }
  }
  return std::max(1u, per_peer);
}

std::uint32_t p2p_channels_for(std::uint64_t bytes, const CommShape& s, NcclVersion v, const CtaLimits& limits) {
  const std::uint32_t most = p2p_channels_per_peer(s, v, limits);
  const std::uint32_t p2p = p2p_channels(s, limits);
  std::uint32_t fewest = most;
  while (fewest * s.ranks > p2p && fewest > 1)
    fewest /= 2;
  if (bytes == 0)
    return 1;
  const std::uint64_t chunk = s.nodes > 1 ? kNetChunk : s.intra == platforms::LinkKind::nvlink ? kNvlChunk : kPciChunk;
  const std::uint64_t min_part = s.nodes > 1 ? chunk / 2 : chunk / 8;
  const std::uint64_t max_part = s.nodes > 1 ? chunk : chunk * 32;
  auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(fewest, div_up(bytes, min_part)));
  std::uint64_t part = std::max<std::uint64_t>(min_part, div_up(bytes, n));
  while (part > max_part && n <= most / 2) {
    n *= 2;
    part = div_up(bytes, n);
  }
  return std::max(1u, n);
}

} // namespace echo::collectives
