#pragma once
// Simulation: one simulated iteration of a job. The constructor loads the platform into a fresh
// SimGrid engine and reads the workload; run() creates one actor per (rank, stream), replays the
// programs and returns the result. SimGrid keeps one engine per process, so a process runs one
// Simulation (tests fork a child per simulation).
//
// Errors the user caused (bad files, mismatched collectives, deadlocks) throw UserError.
#include "collectives/algorithm.hpp"
#include "core/job_spec.hpp"
#include "core/simulation_result.hpp"
#include "platforms/cluster.hpp"
#include "workloads/workload.hpp"

#include <functional>
#include <memory>

namespace echo::core {

// How far a running simulation is, for a progress display.
struct Progress {
  double simulated_s = 0.0;       // simulated time reached
  std::uint64_t tasks_done = 0, tasks_total = 0;
  std::uint64_t events = 0;       // tasks done + collective steps timed so far
  double wall_s = 0.0;            // since run() started
};
// Called from inside run() about four times a wall-clock second (never for runs shorter than that).
using ProgressFn = std::function<void(const Progress&)>;

class Simulation {
public:
  explicit Simulation(const JobSpec& job);
  // A workload built in memory (benchmarks, generators); `source` names it in messages.
  Simulation(const platforms::PlatformSource& platform, workloads::Workload workload,
             CommunicationSpec communication = {}, SlowdownSpec slowdown = {}, bool comm_measured = false);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Researchers add their own algorithms here before run(); the job's algorithm list (NCCL_ALGO
  // syntax) says where they are used.
  collectives::AlgorithmRegistry& algorithms();
  // Which interchangeable ranks run once (core/rank_folding.hpp): by default TP siblings where it
  // cannot change the result; `none`: every rank, for checking that claim; `all`: replicas too.
  void set_rank_folding(RankFolding folding);
  const workloads::Workload& workload() const;
  const platforms::Cluster& cluster() const;

  // `record_intervals`: keep every executed interval (needed for the timeline).
  SimulationResult run(bool record_intervals, const ProgressFn& progress = {});

private:
  void init(const platforms::PlatformSource& platform, workloads::Workload workload, CommunicationSpec communication,
            SlowdownSpec slowdown, bool comm_measured);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace echo::core
