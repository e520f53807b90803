#pragma once
// StreamActor: the SimGrid actor that replays one stream of one rank. Kernels of a stream run in
// order; a task also waits for its cross-stream dependencies (CUDA events). Compute kernels
// sleep for their duration; communication blocks in the CallMatcher until its schedule says
// this rank is done. Kernels are sleeps, not activities: no solver work.
//
// Consecutive compute kernels that nobody else can observe in between (no other stream waits
// on them, and their own waits are already met) run as one sleep of their summed duration:
// their times are exact, the actor just wakes once instead of once per kernel. Context switches
// are the cost of a 10,000-GPU simulation, and this removes most of them.
#include "base/user_error.hpp"
#include "core/call_matcher.hpp"
#include "core/rank_runtime.hpp"
#include "core/simulation_result.hpp"
#include "core/kernel_features.hpp"
#include "slowdown/predictor.hpp"
#include "workloads/workload.hpp"

#include <simgrid/s4u/Mutex.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace echo::core {

// State shared by all actors of one run (single-threaded: SimGrid runs actors one at a time).
struct RunState {
  const workloads::Workload* workload = nullptr;
  CallMatcher* matcher = nullptr;
  std::vector<RankRuntime>* ranks = nullptr;
  simgrid::s4u::MutexPtr mutex;
  bool record = false;
  std::vector<Interval> intervals;
  std::uint64_t tasks_done = 0;
  double last_task_end_s = 0.0;  // when a stream last finished a task: where a deadlocked run stopped
  std::optional<UserError> error;            // the first user error raised inside an actor
  std::optional<std::string> internal_error; // the first bug (any other exception) inside an actor
  const slowdown::Predictor* slowdown = nullptr;  // compute slowdown under overlap
  bool comm_measured = false;  // collectives take their traced duration, no rendezvous
  std::vector<std::vector<double>> slowdown_of_task;  // per program, per task (kernel_features.hpp)
  SlowdownByCollective* slowdown_by_collective = nullptr;  // set when the model looks at the collective
};

class StreamActor {
public:
  StreamActor(RunState& state, std::uint32_t rank, std::uint32_t stream) : state_(&state), rank_(rank), stream_(stream) {}
  void operator()() const;

private:
  void wait_for_dependencies(RankRuntime& rt, const workloads::ProgramTask& task) const;
  double communicate(const workloads::ProgramTask& task, Interval& record) const;
  // Runs the compute kernels from `first` on as one sleep; returns how many it ran.
  std::size_t compute_batch(RankRuntime& rt, std::size_t first) const;
  // Runs one compute kernel that communication on another stream may slow down: it progresses at
  // 1 / (1 + s) while any communication runs on this GPU, re-rated whenever that changes.
  void compute_overlapped(RankRuntime& rt, std::size_t pos) const;
  // Runs one kernel that fills the GPU (one thread block per SM for its whole run): beside no
  // communication kernel it holds every SM, so a communication kernel launched meanwhile waits
  // for its end; beside one, its blocks that find no SM start when the communication ends or its
  // other blocks do, whichever comes first, and take its whole time again.
  void compute_filling(RankRuntime& rt, std::size_t pos) const;
  // A communication kernel needs SMs: it waits while a kernel fills the GPU. A collective holds
  // them from its launch, and is counted while it waits (the SMs go to it first when that kernel
  // ends); a send or recv from its transfer's start, as it counts as communication (the engine
  // posts them as soon as their stream allows, not when the host would launch them).
  void wait_for_sms(RankRuntime& rt, const workloads::ProgramTask& task) const;
  // Waits until communication on this GPU starts or stops (comm_changed), or until `until_s`,
  // unless it already has since `epoch` (rt.comm_epoch) was read.
  void wait_for_comm_change(RankRuntime& rt, std::uint64_t epoch, double until_s) const;
  void comm_changed(RankRuntime& rt) const;
  void finish(RankRuntime& rt, std::size_t count) const;

  RunState* state_;
  std::uint32_t rank_;
  std::uint32_t stream_;
};

} // namespace echo::core
