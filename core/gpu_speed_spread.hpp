#pragma once
// GPUs of one model do not run at one speed: power management and manufacturing spread their
// sustained clocks, so the same kernel takes a few per cent longer on some GPUs than on others
// (Sinha et al., "Not All GPUs Are Created Equal", SC'22). Synchronous training waits for the
// slowest GPU at every collective, so the spread costs more the more GPUs a job has.
//
// The platform's root property `gpu_speed_spread` is the standard deviation of that speed as a
// fraction of the median GPU's (the presets: 0.012; absent: 0). Each rank's GPU kernels take
// 1 + spread x z times their duration, z the rank's share of the standard normal distribution:
// the N ranks take the quantiles (i + 0.5) / N in an order scrambled by rank (deterministic,
// nothing random), so the slowest of N GPUs sits where the slowest of N usually does.
//
// Ranks that must be simulated alike keep one factor: the members of a communicator of the
// workload's symmetric slot (a generated job's tensor-parallel group, which meets every few
// kernels and so runs at its slowest member's pace) take the group's largest, whatever the
// folding, so `--fold exact` stays exact; a folded representative takes the largest of the
// ranks it stands for.
#include "core/rank_folding.hpp"
#include "workloads/workload.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace echo::core {

// Reads `gpu_speed_spread` (a fraction in [0, 0.2]); throws UserError naming the property and
// `source` for anything else.
double gpu_speed_spread_of(const std::string& property_text, const std::string& source);

// Per rank: the factor on its GPU kernels' durations (1 everywhere when spread is 0).
std::vector<double> gpu_time_factors(const workloads::Workload& w, double spread, const FoldedRanks& folded);

} // namespace echo::core
