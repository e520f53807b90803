#pragma once
// The job file (YAML) and `--set key=value` overrides, turned into a core::JobSpec.
//
//   platform: {preset: dgx-h100, nodes: 16, nic_bw: 200Gbps}   # or {file: cluster.xml}
//   workload: {trace: trace.pbtxt}
//   output:   {dir: out, timeline: true}
//
// Unknown keys are errors that name the key, its line and the keys allowed there. Relative paths
// are relative to the job file's folder.
#include "core/job_spec.hpp"

#include <string>
#include <vector>

namespace echo::cli {

// `overrides` are "dotted.key=value" strings from --set, applied before the file is checked.
core::JobSpec load_job(const std::string& path, const std::vector<std::string>& overrides);

// The same for a job given as YAML text (tests, generated jobs). `base_dir` resolves relative paths.
core::JobSpec parse_job(const std::string& yaml_text, const std::string& shown_name, const std::string& base_dir,
                        const std::vector<std::string>& overrides);

} // namespace echo::cli
