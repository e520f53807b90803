#pragma once
// The settings a generated job ran with, every default made explicit, keyed as the job file spells
// them (`parallel.zero`, `training.host.forward_op_us`): so a result says what produced it, and two
// results can be told apart by what differed.
#include "workloads/generator/training_job.hpp"

#include <string>
#include <utility>
#include <vector>

namespace echo::workloads {

using Settings = std::vector<std::pair<std::string, std::string>>;

// After check_training_job() has filled what depends on other settings (dp, ffn_hidden, kv_heads).
Settings resolved_settings(const TrainingJob& job);

} // namespace echo::workloads
