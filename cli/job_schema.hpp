#pragma once
// The job file's shape in one place: which keys each section allows. The parser checks keys
// against it, `sweep` validates its axes against it (and suggests the nearest key).
#include <string>
#include <vector>

namespace echo::cli {

// Keys allowed in a section ("" is the top level; nested sections are dotted: "workload.model").
const std::vector<std::string>& allowed_keys(const std::string& section);
// The `workload` keys of a traced run: every importer's job key and options, replicate, comm, kernel_time_scale.
std::vector<std::string> traced_workload_keys();
// Every key that takes a value, fully dotted ("workload.parallel.tp", "platform.nodes").
std::vector<std::string> job_value_keys();
// The value key closest to `key` by edit distance, for "did you mean" messages.
std::string nearest_job_key(const std::string& key);

} // namespace echo::cli
