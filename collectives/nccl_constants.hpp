#pragma once
// NCCL's tuning constants (NCCL 2.30, src/graph/tuning.cc), indexed by NCCL's own enums.
// Latencies in microseconds, bandwidths in GB/s. Only numbers live here; nccl_tuner.cpp applies
// them the way NCCL does and nccl_cost.cpp reuses the per-hop latencies as the nominal cost of a
// step before calibration.
#include "collectives/nccl_vocabulary.hpp"

#include <cstddef>
#include <cstdint>

namespace echo::collectives::nccl {

enum Hw { kNvlink = 0, kPci = 1, kNet = 2 };

constexpr std::size_t index(NcclAlgo a) { return static_cast<std::size_t>(a); }
constexpr std::size_t index(Protocol p) { return static_cast<std::size_t>(p); }
constexpr std::size_t index(Arch a) { return static_cast<std::size_t>(a); }

// floor(log2(v)), -1 for 0: NCCL's log2i.
constexpr int log2i(std::uint64_t v) {
  int l = -1;
  for (; v != 0; v >>= 1)
    ++l;
  return l;
}

// [algorithm][protocol]
inline constexpr double kBaseLatency[7][3] = {
    {6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0}};

// [hardware][algorithm][protocol]
inline constexpr double kHwLatency[3][7][3] = {
    {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
    {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}}};

// [row][nodes class: 1, 2, more]. Row: the GPU architecture on one node; on several nodes the
// CPU: 0 for Intel, 1 for AMD (NCCL's own indexing).
inline constexpr double kLlMaxBw[4][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}};
// [architecture][nodes class]
inline constexpr double kPerChMaxRingLL128Bw[4][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {40, 40, 40}};
inline constexpr double kPerChMaxTreeLL128Bw[4][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
inline constexpr double kPerChMaxTreeBw[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
inline constexpr double kPerChMaxNvlsTreeBw[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}};
inline constexpr double kNvlsEfficiency[4] = {0.0, 0.0, 0.85, 0.74};

// Tree AllReduce bandwidth correction per power of two of bytes / 64: [protocol][log2]
inline constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

// Threads per channel and the bytes per thread below which NCCL drops channels for small calls.
inline constexpr int kMaxThreads[3] = {512, 640, 512};  // LL, LL128, Simple
inline constexpr int kThreadThreshold[3] = {8, 8, 64};   // ring LL is further multiplied by nRanks

// Inter-node rings pay at least the network post overhead per step (x3 for Simple): NCCL's
// getNetOverhead, 1 us on Intel hosts and 2 on AMD ones (NCCL_NET_OVERHEAD overrides it there).
inline constexpr double kNetOverheadIntelUs = 1.0, kNetOverheadAmdUs = 2.0;
constexpr double net_overhead_us(bool amd_cpu) { return amd_cpu ? kNetOverheadAmdUs : kNetOverheadIntelUs; }

} // namespace echo::collectives::nccl
