#pragma once
// RankRuntime: the per-rank state of a running simulation — progress per stream, sequence
// counters for communicator calls and point-to-point pairs, and the online busy-time breakdown.
// Everything per task lives in the shared RankProgram; this stays small (O(streams + slots)).
#include "workloads/rank_program.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>

#include <algorithm>

#include <cstdint>
#include <vector>

namespace echo::core {

class RankRuntime {
public:
  // `slots`: the workload's; one more is kept for communication kernels (TimeKind::comm).
  RankRuntime(std::uint32_t rank, const workloads::RankProgram& program, std::size_t slots)
      : rank_(rank), program_(&program), done_(program.streams.size(), 0),
        needs_(program.streams.size(), workloads::StreamPosition{kNotWaiting, 0}),
        waiting_actor_(program.streams.size(), nullptr), overlap_signal_(simgrid::s4u::ConditionVariable::create()),
        active_by_slot_(slots + 1, 0), exposed_by_slot_s_(slots + 1, 0.0) {}
  std::uint32_t comm_kernels_slot() const { return static_cast<std::uint32_t>(active_by_slot_.size() - 1); }

  std::uint32_t rank() const { return rank_; }
  const workloads::RankProgram& program() const { return *program_; }

  // How much longer than their durations this rank's GPU kernels take (core/gpu_speed_spread.hpp).
  double gpu_time_factor() const { return gpu_time_factor_; }
  void set_gpu_time_factor(double f) { gpu_time_factor_ = f; }

  // In-stream progress: stream s has finished done(s) tasks.
  std::uint32_t done(std::uint32_t stream) const { return done_[stream]; }
  bool ready(const workloads::ProgramTask& task) const {
    for (std::uint32_t w = task.waits_begin; w < task.waits_end; ++w) {
      const auto& need = program_->waits[w];
      if (done_[need.stream] <= need.position)
        return false;
    }
    return true;
  }
  void finish_task(std::uint32_t stream) { ++done_[stream]; }

  // Point-to-point transfers are ordered per (communicator, peer) pair, as NCCL orders them: the
  // n-th send from A to B on communicator C (ProgramTask::seq, in issue order) meets the n-th recv
  // at B from A on C. The communicator index rides in the high bits (transfer_number).
  static std::uint64_t transfer_seq(std::uint32_t comm, std::uint32_t number) {
    return (std::uint64_t{comm} << kTransferCommShift) | number;
  }
  static constexpr int kTransferCommShift = 40;
  static std::uint64_t transfer_number(std::uint64_t seq) { return seq & ((std::uint64_t{1} << kTransferCommShift) - 1); }

  // Streams of this rank wait for each other's tasks (CUDA events, in effect). A waiting stream
  // names the one (stream, position) it needs next and the actor that waits; a finishing stream
  // wakes only the streams whose need it met, never the others (no spurious wake-ups).
  void wait_on(std::uint32_t stream, workloads::StreamPosition need, simgrid::s4u::Actor* actor) {
    needs_[stream] = need;
    waiting_actor_[stream] = actor;
    ++dependency_waiters;
  }
  void stop_waiting(std::uint32_t stream) {
    needs_[stream].stream = kNotWaiting;
    waiting_actor_[stream] = nullptr;
    --dependency_waiters;
  }
  // Calls `wake(actor)` for every waiting stream whose need is met now that `finished` advanced.
  template <class Wake> void wake_satisfied(std::uint32_t finished, Wake&& wake) const {
    for (std::uint32_t s = 0; s < needs_.size(); ++s)
      if (needs_[s].stream == finished && done_[finished] > needs_[s].position)
        wake(*waiting_actor_[s]);
  }
  std::uint32_t dependency_waiters = 0;

  // Busy-time breakdown, advanced at every start and end of a kernel on this GPU. Exposed
  // communication is also split by communicator slot (tp, dp, pp, ...): an instant when several
  // slots communicate and nothing computes is shared evenly between them.
  void begin_compute(double now_s) {
    advance(now_s);
    ++active_compute_;
  }
  void end_compute(double now_s) {
    advance(now_s);
    --active_compute_;
    end_s_ = now_s;
  }
  void begin_comm(std::uint32_t slot, double now_s) {
    advance(now_s);
    ++active_comm_;
    if (active_by_slot_[slot]++ == 0)
      ++active_slots_;
  }
  void end_comm(std::uint32_t slot, double now_s) {
    advance(now_s);
    --active_comm_;
    if (--active_by_slot_[slot] == 0)
      --active_slots_;
    end_s_ = now_s;
  }
  bool comm_active() const { return active_comm_ > 0; }
  // What the communication beside this GPU's kernels is, for slowdown models that look at it:
  // the features (slowdown/features.hpp) of each running call, kept by the call matcher.
  void collective_began(const std::vector<float>* features) { running_collectives_.push_back(features); }
  void collective_ended(const std::vector<float>* features) {
    const auto it = std::find(running_collectives_.begin(), running_collectives_.end(), features);
    if (it != running_collectives_.end())
      running_collectives_.erase(it);
  }
  // The running call that moves the most bytes (the one that takes the most of the GPU), or null.
  const std::vector<float>* dominant_collective() const {
    const std::vector<float>* best = nullptr;
    for (const auto* f : running_collectives_)
      if (best == nullptr || f->back() > best->back())
        best = f;
    return best;
  }
  // Compute kernels that may be slowed wait here for communication to start or stop.
  simgrid::s4u::ConditionVariable& overlap_signal() { return *overlap_signal_; }
  std::uint32_t overlap_waiters = 0;
  // Bumped whenever communication on this GPU starts or stops (or changes kind): a kernel that
  // rated itself before taking the mutex sees that it must rate itself again.
  std::uint64_t comm_epoch = 0;
  // The GPU's SMs as kernels that fill the GPU share them with communication kernels
  // (trace.proto Compute.fills_gpu): until when such a kernel holds every SM, and how many
  // communication kernels hold SMs or wait for them (those on reserved SMs not counted).
  double all_sms_held_until_s = 0.0;
  std::uint32_t comm_kernels_on_sms = 0;
  // Rounding can make an unstretched kernel's extra time a hair below zero; it is zero.
  void add_slowdown(double extra_s) { slowdown_s_ += std::max(0.0, extra_s); }
  double slowdown_s() const { return slowdown_s_; }
  double compute_s() const { return compute_s_; }
  double exposed_comm_s() const { return exposed_comm_s_; }
  const std::vector<double>& exposed_by_slot_s() const { return exposed_by_slot_s_; }
  // The rank's iteration: until its host thread is done, and on the GPU from the end of the work
  // it inherited from the previous iteration (trace::CARRY_IN) to the end of its own.
  double end_s() const { return std::max(host_end_s_, std::max(0.0, end_s_ - carry_in_end_s_)); }
  void begin_host(double now_s) {
    advance(now_s);
    ++active_host_;
  }
  void end_host(double now_s) {
    advance(now_s);
    --active_host_;
    host_end_s_ = std::max(host_end_s_, now_s);
  }
  void begin_carry_in(double now_s) {
    advance(now_s);
    ++active_carry_in_;
  }
  void end_carry_in(double now_s) {
    advance(now_s);
    --active_carry_in_;
    carry_in_end_s_ = std::max(carry_in_end_s_, now_s);
  }
  // Time the GPU ran nothing while its host thread worked: it waited for launches (host-bound).
  double host_bound_s() const { return host_bound_s_; }
  // Time the host thread worked (launching, or what a trace's host did between its launches).
  double host_busy_s() const { return host_busy_s_; }

private:
  void advance(double now_s) {
    const double dt = now_s - last_change_s_;
    if (active_host_ > 0)
      host_busy_s_ += dt;
    if (active_compute_ > 0) {
      compute_s_ += dt;
    } else if (active_comm_ > 0) {
      exposed_comm_s_ += dt;
      for (std::size_t s = 0; s < active_by_slot_.size(); ++s)
        if (active_by_slot_[s] > 0)
          exposed_by_slot_s_[s] += dt / active_slots_;
    } else if (active_carry_in_ == 0 && active_host_ > 0) {
      host_bound_s_ += dt;
    }
    last_change_s_ = now_s;
  }

  std::uint32_t rank_;
  double gpu_time_factor_ = 1.0;
  const workloads::RankProgram* program_;
  std::vector<std::uint32_t> done_;
  static constexpr std::uint32_t kNotWaiting = ~0u;
  std::vector<workloads::StreamPosition> needs_;  // per stream: what it waits for, or kNotWaiting
  std::vector<simgrid::s4u::Actor*> waiting_actor_;  // per stream: its actor while it waits, or null
  simgrid::s4u::ConditionVariablePtr overlap_signal_;
  double slowdown_s_ = 0.0;
  int active_compute_ = 0, active_comm_ = 0, active_host_ = 0, active_carry_in_ = 0;
  double host_bound_s_ = 0.0, host_busy_s_ = 0.0;
  std::vector<const std::vector<float>*> running_collectives_;
  std::vector<std::uint32_t> active_by_slot_;
  std::uint32_t active_slots_ = 0;
  std::vector<double> exposed_by_slot_s_;
  double last_change_s_ = 0.0;
  double compute_s_ = 0.0, exposed_comm_s_ = 0.0, end_s_ = 0.0, host_end_s_ = 0.0, carry_in_end_s_ = 0.0;
};

// How a compute task's time counts: GPU work, host time, work inherited from the previous
// iteration (neither is GPU work of this iteration), or a communication library's own kernel
// (trace::COMMUNICATION on a compute task: DeepEP's dispatch, say) — communication at its traced
// duration, counted on the communication-kernel slot (kCommKernelsSlot).
enum class TimeKind : std::uint8_t { gpu, host, carry_in, comm };
inline TimeKind time_kind(trace::Category category) {
  switch (category) {
  case trace::HOST: return TimeKind::host;
  case trace::CARRY_IN: return TimeKind::carry_in;
  case trace::COMMUNICATION: return TimeKind::comm;
  default: return TimeKind::gpu;
  }
}
// The breakdown's name for the communication kernels' exposed time (one slot past the workload's).
inline constexpr const char* kCommKernelsSlot = "comm_kernels";

} // namespace echo::core
