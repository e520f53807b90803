#pragma once
// Running the points of a sweep: each point is an independent simulation in its own process
// (SimGrid keeps one engine per process), `workers` at a time. Every result is appended to a log
// as one JSON line the moment it is known, so an interrupted sweep loses nothing and, resumed,
// runs only the points the log does not have. Results do not depend on the number of workers.
#include "core/job_spec.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace echo::sweep {

struct SweepJob {
  std::size_t index = 0;
  std::string label;                                      // "parallel.tp=2 parallel.pp=4"
  std::vector<std::pair<std::string, std::string>> point; // the axes' values
  std::optional<core::JobSpec> job;                             // absent: the job file rejected the values
  std::string error;                                      // why it was rejected
};

// One result: {index, label, point{key: value}, status: ok | invalid | does_not_fit | failed,
// reason, and for `ok` iteration_time_s, tokens_per_s, tflops_per_gpu, mfu, peak_memory_bytes,
// memory_capacity_bytes, breakdown{...}, limit}.
using SweepRecord = nlohmann::ordered_json;

// The records of `log` (a JSON-lines file; a line cut short by an interruption is ignored) whose
// labels are in `labels`.
std::vector<SweepRecord> read_sweep_log(const std::string& log, const std::set<std::string>& labels);

// Runs `jobs` (those whose label is not in `done`), appending each record to `log`;
// `on_record` sees each as it arrives. Returns the new records.
std::vector<SweepRecord> run_sweep(const std::vector<SweepJob>& jobs, const std::set<std::string>& done, unsigned workers,
                                   const std::string& log, const std::function<void(const SweepRecord&)>& on_record);

// Where records go as they arrive: appended to the log, shown to `on_record`, kept.
struct SweepSink {
  std::string log;
  std::function<void(const SweepRecord&)> on_record;
  std::vector<SweepRecord> records;
  void add(SweepRecord r);
};

// One point, simulated in a child process (or rejected when the job file refused its values).
SweepRecord simulate_in_child(const SweepJob& job);
// Appends one record to the log as one line (one write: an interruption leaves whole lines).
void append_sweep_log(const std::string& log, const SweepRecord& record);

// What limits a simulated point most: the largest of the pipeline bubble and each exposed
// communication, when it is at least 5% of the iteration ("compute" otherwise), and "memory"
// when the peak is above 90% of the GPU's.
std::string sweep_limit(const SweepRecord& record);

} // namespace echo::sweep
