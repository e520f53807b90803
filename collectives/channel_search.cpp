#include "collectives/channel_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

namespace echo::collectives {

namespace {

// Per-channel speeds (GB/s) NCCL's search tries, by architecture, inside one node and across nodes.
constexpr double kIntra[] = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
constexpr double kInter[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12};
constexpr double kIntraSm90[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
constexpr double kInterSm90[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12};
constexpr double kIntraSm100[] = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
constexpr double kInterSm100[] = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12};

constexpr std::uint32_t kMaxRingChannels = 32;  // MAXCHANNELS / 2

std::span<const double> speeds(Arch arch, bool inter) {
  switch (arch) {
  case Arch::blackwell: return inter ? std::span<const double>(kInterSm100) : std::span<const double>(kIntraSm100);
  case Arch::hopper: return inter ? std::span<const double>(kInterSm90) : std::span<const double>(kIntraSm90);
  default: return inter ? std::span<const double>(kInter) : std::span<const double>(kIntra);
  }
}

// Channels of `speed` GB/s the links can carry: each crosses a node's GPUs once (so shares each
// GPU's NVLink bandwidth) and each NIC carries whole channels.
std::uint32_t capacity(const CommShape& s, double speed) {
  std::uint32_t cap = kMaxRingChannels;
  if (s.ppn > 1)
    cap = std::min<std::uint32_t>(cap, static_cast<std::uint32_t>(std::floor(s.intra_GBps / speed + 1e-9)));
  if (s.nodes > 1)
    cap = std::min<std::uint32_t>(cap, s.nics * static_cast<std::uint32_t>(std::floor(s.nic_GBps / speed + 1e-9)));
  return cap;
}

} // namespace

ChannelGraph ring_graph(const CommShape& s) {
  ChannelGraph g;
  if (s.ranks <= 1 || (s.ppn <= 1 && s.nodes <= 1))
    return g;
  const bool inter = s.nodes > 1;
  const double max_bw = inter ? s.nic_GBps : s.intra_GBps;
  const double total_bw = std::max(s.intra_GBps, s.nic_GBps);
  const auto list = speeds(s.arch, inter);
  std::size_t i = 0;
  while (i + 1 < list.size() && (list[i] > max_bw || list[i] > total_bw))
    ++i;
  // Slower speeds are tried while they stay above half the first one that worked; the graph that
  // carries the most wins, the faster one on ties.
  double first_found = 0.0, best_total = 0.0;
  for (; i < list.size(); ++i) {
    const std::uint32_t ch = capacity(s, list[i]);
    if (ch == 0)
      continue;
    if (first_found == 0.0)
      first_found = list[i];
    else if (list[i] < 0.49 * first_found)
      break;
    if (ch * list[i] > best_total + 1e-9) {
      best_total = ch * list[i];
      g.channels = ch;
      g.bw_intra_GBps = g.bw_inter_GBps = list[i];
    }
  }
  if (best_total == 0.0) {  // links slower than any speed NCCL tries: one slow channel
    g.channels = 1;
    g.bw_intra_GBps = g.bw_inter_GBps = max_bw;
    return g;
  }
  // NCCL duplicates the channels of fast graphs, each copy at half the speed.
  const bool newer = s.arch == Arch::hopper || s.arch == Arch::blackwell;
  if (g.bw_intra_GBps >= 25.0 && !(newer && g.bw_intra_GBps < 50.0 && g.channels > 4)) {
    const std::uint32_t dup = std::min(2 * g.channels, kMaxRingChannels);
    const double split = std::ceil(static_cast<double>(dup) / g.channels);
    g.channels = dup;
    g.bw_intra_GBps /= split;
    g.bw_inter_GBps /= split;
  }
  return g;
}

ChannelGraph nvls_graph(const CommShape& s) {
  ChannelGraph g;
  g.channels = 0;
  const bool capable = (s.arch == Arch::hopper || s.arch == Arch::blackwell) && s.nvswitch &&
                       s.intra == platforms::LinkKind::nvlink && s.ppn > 1;
  if (!capable)
    return g;
  g.channels = s.arch == Arch::blackwell ? 24 : 16;
  g.bw_intra_GBps = s.intra_GBps / g.channels;
  g.bw_inter_GBps = s.nodes > 1 ? s.nics * s.nic_GBps / g.channels : 0.0;
  return g;
}

} // namespace echo::collectives
