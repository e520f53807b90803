#pragma once
// The space of a sweep (`echo-des sweep JOB --space SPACE.yaml`): job keys and the values each
// takes, as lists or ranges, written flat or nested:
//
//   parallel.tp: [1, 2, 4, 8]                  # workload.* sections may drop the `workload.`
//   parallel.pp: {from: 1, to: 16, times: 2}   # 1, 2, 4, 8, 16
//   training.micro_batch: {from: 1, to: 4, step: 1}
//   platform: {preset: [dgx-a100, dgx-h100]}
//
// Every key must be a key of the job file (the message names the nearest one); the points are all
// combinations, the first axis outermost.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace echo::cli {

struct SweepAxis {
  std::string key;                  // fully dotted job key: "workload.parallel.tp"
  std::vector<std::string> values;  // as --set would take them
};

using SweepPoint = std::vector<std::pair<std::string, std::string>>;  // (key, value) per axis

std::vector<SweepAxis> read_sweep_space(const std::string& path);
std::vector<SweepPoint> sweep_points(const std::vector<SweepAxis>& axes);
// "parallel.tp=2 parallel.pp=4": the point's values, keys without the `workload.` prefix.
std::string point_label(const SweepPoint& point);

} // namespace echo::cli
