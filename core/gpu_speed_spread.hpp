#pragma once
// GPUs of one model do not run at one speed: power management and manufacturing spread their
// sustained clocks, so the same kernel takes a few per cent longer on some GPUs than on others
// (Sinha et al., "Not All GPUs Are Created Equal", SC'22). Synchronous training waits for the
// slowest GPU at every collective, so the spread costs more the more GPUs a job has.
//
// The platform's root property `gpu_speed_spread` (read by platforms::gpu_speed_spread_value) is the standard deviation of that speed as a
// fraction of the median GPU's (the presets: 0.012; absent: 0). Each rank's GPU kernels take
// 1 + spread x z times their duration, z the rank's share of the standard normal distribution:
// the N ranks take the quantiles (i + 0.5) / N in an order scrambled by rank (deterministic,
// nothing random), so the slowest of N GPUs sits where the slowest of N usually does.
//
// Ranks that wait for each other run at the slowest one's pace: the members of the workload's
// paced slots' communicators (a generated job's tensor-parallel group, which meets every few
// kernels, and its data-parallel group, whose replicas meet at every gradient bucket), and so,
// transitively, every GPU of one pipeline stage, take the largest factor among them. Physically
// the faster GPUs would idle in the calls instead; the iteration is the same, and replicas that
// keep in step keep the simulation's events in step too (otherwise every replica's kernels end at
// instants of their own: twice the engine's work at 8,192 GPUs). The ranks either folding
// simulates once (TP siblings, data- and expert-parallel replicas) share one pace, so folding
// stays exact.
#include "workloads/workload.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace echo::core {

struct GpuPace {
  std::vector<double> time_factor;  // per rank: the factor on its GPU kernels' durations
  double slowest = 1.0;             // the slowest GPU's own factor, and its rank
  std::uint32_t slowest_rank = 0;
};
// All factors 1 when spread is 0 or the job has one rank.
GpuPace gpu_pace(const workloads::Workload& w, double spread);

} // namespace echo::core
