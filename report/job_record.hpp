#pragma once
// The job a run ran, every setting resolved: the summary's `job` object and the report's header.
// A result then says what produced it — the platform's figures (a preset's defaults made
// explicit), the workload's files, how communication was chosen (and from where: the job, a
// --set, NCCL_ALGO / NCCL_PROTO in the environment), the slowdown model, the --set overrides as
// given and the echo-des version. Generated jobs' training settings stay in workload.settings.
// Paths of the output folder are left out: two runs of the same inputs into two folders record
// the same job.
#include "core/job_spec.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace echo::report {

nlohmann::ordered_json job_record(const core::JobSpec& job);

// Every setting a summary records, by dotted key: its `job` flattened ("job.platform.nic_bw"; a
// list as its items joined by spaces) and a generated job's `workload.settings` as they are.
// `compare` diffs two of these; the report lists one.
std::map<std::string, std::string> recorded_settings(const nlohmann::json& summary);

} // namespace echo::report
