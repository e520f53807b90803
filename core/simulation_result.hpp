#pragma once
// What one simulated iteration produced: the iteration time, a breakdown per rank, and (when
// asked for) every executed interval for the timeline.
#include "core/job_spec.hpp"
#include "workloads/training_facts.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace echo::core {

// Over [0, iteration end]: compute_s while any compute kernel runs on the GPU, exposed_comm_s
// while communication runs and no compute does (a collective counts from the rank's arrival at
// the call, as an NCCL kernel shows on a GPU timeline), idle_s the rest. They add up to the
// iteration time.
struct RankBreakdown {
  std::uint32_t rank = 0;
  double compute_s = 0.0;
  double exposed_comm_s = 0.0;
  double idle_s = 0.0;
  double end_s = 0.0;  // the rank's iteration: its host thread's end, or its GPU's end less the work carried in
  std::vector<double> exposed_by_slot_s;  // exposed_comm_s split by communicator slot (SimulationResult::slots)
  double slowdown_s = 0.0;  // compute time added by overlap with communication (within compute_s)
  double host_bound_s = 0.0;  // idle GPU while the host thread worked: waiting for launches (within idle_s)
  double host_busy_s = 0.0;   // the host thread's working time (it overlaps the GPU's)
};

struct Interval {
  std::uint32_t rank = 0;
  std::uint32_t stream = 0;
  std::uint32_t task = 0;  // index in the rank's program
  double start_s = 0.0;
  double end_s = 0.0;
  std::uint32_t comm = 0;  // communication: communicator index; send/recv: peer global rank
  std::uint64_t seq = 0;   // communication: sequence number of the call
};

// The collectives of the iteration, grouped by communicator, op and size: how many calls, their
// summed time (first member's arrival to last member's finish, per call) and how NCCL ran them.
struct CollectiveStat {
  std::string communicator;  // its name in the trace ("dp.0")
  std::string op;            // "all_reduce", ...
  std::uint64_t bytes = 0;
  std::uint64_t calls = 0;
  double total_s = 0.0;
  std::string choice;        // "Ring/Simple/8"
};

// One stretch of the critical path (core/critical_path.hpp).
struct CriticalSegment {
  std::string name;   // the task's name
  std::string kind;   // compute | host | carried in | communication kernel | all_reduce | ... | send | recv
  std::uint32_t rank = 0;
  double start_s = 0.0;  // the part of the interval on the path
  double duration_s = 0.0;
};

struct SimulationResult {
  std::string workload_name;
  std::string workload_source;
  std::string platform;      // description
  std::uint32_t gpus = 0;    // on the platform
  std::uint32_t ranks = 0;
  std::uint64_t tasks = 0;
  std::uint64_t iteration_ns = 0;
  double iteration_time_s = 0.0;
  std::uint64_t measured_iteration_ns = 0;  // from the trace, 0 when unknown
  std::vector<std::string> notes;           // what the trace's importer inferred or assumed
  std::vector<std::string> run_notes;       // what the run says of itself (GPUs left idle, ...)
  std::vector<RankBreakdown> per_rank;
  std::vector<std::string> slots;  // communicator slot names, as the trace calls them ("tp", "dp")
  std::string slowdown_model;      // none | constant | category | xgboost
  // Models that read kernel metrics (xgboost): compute kernels of the workload's programs that
  // had none (given their category's default instead), of all its compute kernels.
  std::uint64_t kernels_without_metrics = 0, compute_kernels = 0;
  std::uint64_t events = 0;  // tasks executed + collective steps timed
  std::uint64_t collectives = 0;
  std::uint64_t collectives_too_large = 0;  // ran as `analytic`: schedule beyond kMaxStepsPerCall
  double wall_s = 0.0;      // whole job: loading and simulating
  double run_wall_s = 0.0;  // the engine's run alone (events per second are measured on it)
  double peak_rss_mb = 0.0;
  std::vector<CollectiveStat> collective_stats;  // by total time, longest first
  // Only when recording; a mirrored rank (rank folding) has none of its own: its timeline is its
  // representative's, on its own communicators.
  std::vector<Interval> intervals;
  std::vector<std::uint32_t> representative;  // per rank, the rank it mirrors (itself if simulated); empty: none folded
  std::vector<CriticalSegment> critical_path;  // only when recording, in time order
  // Generated workloads: model arithmetic and memory; memory_by_rank[r] is rank r's breakdown.
  std::optional<workloads::TrainingFacts> training;
  std::vector<std::uint32_t> program_of_rank;
  // The job as it ran, every setting resolved; empty for a simulation built in code.
  std::optional<JobSpec> job;
};

} // namespace echo::core
