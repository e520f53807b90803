#include "core/stream_actor.hpp"

#include "core/cooperative_wait.hpp"

#include "core/trace_names.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <mutex>

namespace echo::core {

namespace sg4 = simgrid::s4u;
using workloads::ProgramTask;
using workloads::TaskKind;

// A stream that needs another stream's task suspends its actor until that stream, finishing the
// task, resumes it: one simcall on each side, where a condition variable costs four (lock, wait,
// unlock, notify). Nothing is lost between the check and the suspension: actors run one at a
// time and SimGrid handles their simcalls in the order they ran, so a resume always follows the
// suspension it answers.
void StreamActor::wait_for_dependencies(RankRuntime& rt, const ProgramTask& task) const {
  const auto& waits = rt.program().waits;
  for (std::uint32_t w = task.waits_begin; w < task.waits_end; ++w) {
    const workloads::StreamPosition need = waits[w];
    if (rt.done(need.stream) > need.position)
      continue;
    rt.wait_on(stream_, need, sg4::Actor::self());
    while (rt.done(need.stream) <= need.position)
      sg4::this_actor::suspend();
    rt.stop_waiting(stream_);
  }
}

double StreamActor::communicate(const ProgramTask& task, Interval& record) const {
  const workloads::Workload& w = *state_->workload;
  const auto comm = static_cast<std::uint32_t>(w.communicator(rank_, task.slot));
  if (task.kind == TaskKind::collective) {
    record.comm = comm;
    record.seq = task.seq;
    return state_->matcher->await_collective(rank_, task, comm, task.seq);
  }
  const std::uint32_t peer = w.communicators[comm].ranks[task.peer_or_root];
  record.comm = peer;
  if (task.kind == TaskKind::send) {
    record.seq = RankRuntime::transfer_seq(comm, task.seq);
    if (task.eager)
      return state_->matcher->post_transfer(rank_, task, peer, record.seq);
    return state_->matcher->await_transfer(rank_, task, rank_, peer, record.seq);
  }
  record.seq = RankRuntime::transfer_seq(comm, task.seq);
  return state_->matcher->await_transfer(rank_, task, peer, rank_, record.seq);
}

std::size_t StreamActor::compute_batch(RankRuntime& rt, std::size_t first) const {
  const workloads::RankProgram& program = rt.program();
  const auto& order = program.stream_order[stream_];
  std::size_t end = first + 1;
  std::uint64_t total_ns = program.tasks[order[first]].duration_ns;
  while (end < order.size() && !program.tasks[order[end - 1]].observed) {
    const ProgramTask& next = program.tasks[order[end]];
    if (next.kind != TaskKind::compute || next.fills_gpu || !rt.ready(next) ||
        time_kind(next.category) != time_kind(program.tasks[order[first]].category))
      break;
    total_ns += next.duration_ns;
    ++end;
  }
  const double start_s = sg4::Engine::get_clock();
  // Host time and the previous iteration's work order this iteration's GPU work but are none of it.
  const TimeKind kind = time_kind(program.tasks[order[first]].category);
  switch (kind) {
  case TimeKind::gpu: rt.begin_compute(start_s); break;
  case TimeKind::host: rt.begin_host(start_s); break;
  case TimeKind::carry_in: rt.begin_carry_in(start_s); break;
  case TimeKind::comm:
    rt.begin_comm(rt.comm_kernels_slot(), start_s);
    comm_changed(rt);
    break;
  }
  // Host work, carried-in work and communication kernels keep their durations; this GPU's
  // kernels run at its own speed.
  const double scale = kind == TimeKind::gpu ? rt.gpu_time_factor() : 1.0;
  if (total_ns > 0)
    sg4::this_actor::sleep_for(static_cast<double>(total_ns) * 1e-9 * scale);
  const double end_s = sg4::Engine::get_clock();
  switch (kind) {
  case TimeKind::gpu: rt.end_compute(end_s); break;
  case TimeKind::host: rt.end_host(end_s); break;
  case TimeKind::carry_in: rt.end_carry_in(end_s); break;
  case TimeKind::comm:
    rt.end_comm(rt.comm_kernels_slot(), end_s);
    comm_changed(rt);
    break;
  }
  if (state_->record) {
    std::uint64_t elapsed_ns = 0;
    for (std::size_t k = first; k < end; ++k) {
      const std::uint64_t d = program.tasks[order[k]].duration_ns;
      Interval iv{rank_, stream_, order[k], start_s + static_cast<double>(elapsed_ns) * 1e-9 * scale,
                  start_s + static_cast<double>(elapsed_ns + d) * 1e-9 * scale, 0, 0};
      state_->intervals.push_back(iv);
      elapsed_ns += d;
    }
  }
  return end - first;
}

void StreamActor::wait_for_comm_change(RankRuntime& rt, std::uint64_t epoch, double until_s) const {
  ++rt.overlap_waiters;
  // Taking the mutex yields: communication may start in between (say, a collective launched at
  // the kernel's very start), and its notification would find nobody waiting yet. So the wait
  // happens only if nothing changed since `epoch` was read.
  state_->mutex->lock();
  if (rt.comm_epoch == epoch)
    wait_locked_until(rt.overlap_signal(), state_->mutex, until_s);
  state_->mutex->unlock();
  --rt.overlap_waiters;
}

void StreamActor::compute_overlapped(RankRuntime& rt, std::size_t pos) const {
  const workloads::RankProgram& program = rt.program();
  const std::uint32_t index = program.stream_order[stream_][pos];
  const ProgramTask& task = program.tasks[index];
  const double isolated_s = static_cast<double>(task.duration_ns) * 1e-9 * rt.gpu_time_factor();
  const double s = state_->slowdown_of_task[state_->workload->program_of_rank[rank_]][index];  // no collective known
  const double start_s = sg4::Engine::get_clock();
  rt.begin_compute(start_s);
  // Work left, in seconds at full speed; the rate changes whenever communication starts or stops.
  double remaining_s = isolated_s, t = start_s;
  const std::uint32_t program_index = state_->workload->program_of_rank[rank_];
  while (remaining_s > 0.0) {
    const std::uint64_t epoch = rt.comm_epoch;
    // A model that looks at the collective beside the kernel is asked for the one running now.
    const std::vector<float>* beside = state_->slowdown_by_collective != nullptr ? rt.dominant_collective() : nullptr;
    const double s_now = beside != nullptr ? state_->slowdown_by_collective->of(program_index, index, *beside) : s;
    const double rate = rt.comm_active() ? 1.0 / (1.0 + s_now) : 1.0;
    const double until = t + remaining_s / rate;
    wait_for_comm_change(rt, epoch, until);
    const double now = sg4::Engine::get_clock();
    remaining_s = now >= until ? 0.0 : remaining_s - (now - t) * rate;
    t = now;
  }
  rt.end_compute(t);
  rt.add_slowdown((t - start_s) - isolated_s);
  if (state_->record)
    state_->intervals.push_back(Interval{rank_, stream_, index, start_s, t, 0, 0});
}

void StreamActor::compute_filling(RankRuntime& rt, std::size_t pos) const {
  const workloads::RankProgram& program = rt.program();
  const std::uint32_t index = program.stream_order[stream_][pos];
  const double isolated_s = static_cast<double>(program.tasks[index].duration_ns) * 1e-9 * rt.gpu_time_factor();
  const double start_s = sg4::Engine::get_clock(), first_blocks_end_s = start_s + isolated_s;
  rt.begin_compute(start_s);
  double late_blocks_start_s = start_s;
  if (rt.comm_kernels_on_sms > 0) {
    // Some blocks find no SM: they start when the communication kernels release theirs or the
    // first blocks end, whichever comes first (comm_changed signals every release).
    while (rt.comm_kernels_on_sms > 0 && sg4::Engine::get_clock() < first_blocks_end_s)
      wait_for_comm_change(rt, rt.comm_epoch, first_blocks_end_s);
    late_blocks_start_s = std::min(sg4::Engine::get_clock(), first_blocks_end_s);
  }
  // Until its first blocks end, no SM is free (the late ones took those the communication left).
  if (late_blocks_start_s < first_blocks_end_s)
    rt.all_sms_held_until_s = std::max(rt.all_sms_held_until_s, first_blocks_end_s);
  sg4::this_actor::sleep_until(late_blocks_start_s + isolated_s);
  const double end_s = sg4::Engine::get_clock();
  rt.end_compute(end_s);
  rt.add_slowdown((end_s - start_s) - isolated_s);
  if (state_->record)
    state_->intervals.push_back(Interval{rank_, stream_, index, start_s, end_s, 0, 0});
}

void StreamActor::wait_for_sms(RankRuntime& rt, const workloads::ProgramTask& task) const {
  if (task.reserved_sms)
    return;
  if (task.kind == TaskKind::collective)
    ++rt.comm_kernels_on_sms;
  while (rt.all_sms_held_until_s > sg4::Engine::get_clock())
    sg4::this_actor::sleep_until(rt.all_sms_held_until_s);
}

void StreamActor::comm_changed(RankRuntime& rt) const {
  ++rt.comm_epoch;
  if (rt.overlap_waiters > 0)
    rt.overlap_signal().notify_all();
}

void StreamActor::finish(RankRuntime& rt, std::size_t count) const {
  for (std::size_t k = 0; k < count; ++k)
    rt.finish_task(stream_);
  state_->tasks_done += count;
  state_->last_task_end_s = sg4::Engine::get_clock();
  if (rt.dependency_waiters > 0)
    rt.wake_satisfied(stream_, [](sg4::Actor& waiting) { waiting.resume(); });
}

void StreamActor::operator()() const {
  RankRuntime& rt = (*state_->ranks)[rank_];
  const workloads::RankProgram& program = rt.program();
  const auto& order = program.stream_order[stream_];
  // Kernels of this stream can be slowed only if another stream of the GPU communicates.
  const bool may_overlap = state_->slowdown != nullptr && !state_->slowdown->is_none() &&
                           std::any_of(program.tasks.begin(), program.tasks.end(), [&](const ProgramTask& t) {
                             return t.kind != TaskKind::compute && t.stream != stream_;
                           });
  try {
    for (std::size_t pos = 0; pos < order.size();) {
      const ProgramTask& task = program.tasks[order[pos]];
      wait_for_dependencies(rt, task);
      if (task.kind == TaskKind::compute && task.fills_gpu) {
        compute_filling(rt, pos);
        finish(rt, 1);
        ++pos;
        continue;
      }
      if (task.kind == TaskKind::compute && may_overlap && time_kind(task.category) == TimeKind::gpu) {
        compute_overlapped(rt, pos);
        finish(rt, 1);
        ++pos;
        continue;
      }
      if (task.kind == TaskKind::compute) {
        const std::size_t ran = compute_batch(rt, pos);
        finish(rt, ran);
        pos += ran;
        continue;
      }
      wait_for_sms(rt, task);
      Interval record{rank_, stream_, order[pos], sg4::Engine::get_clock(), 0.0, 0, 0};
      // A collective occupies the GPU from its launch (its kernel spins for late members, as
      // profilers show). A send or recv posted early only waits for its peer: that wait is idle
      // time (a pipeline bubble, typically), and the transfer counts from when both sides are there.
      const bool point_to_point = task.kind != TaskKind::collective;
      const std::vector<float>* features =
          state_->slowdown_by_collective != nullptr
              ? &state_->matcher->collective_features(static_cast<std::uint32_t>(state_->workload->communicator(rank_, task.slot)), task)
              : nullptr;
      if (!point_to_point) {
        rt.begin_comm(task.slot, record.start_s);
        if (features != nullptr)
          rt.collective_began(features);
        comm_changed(rt);
      }
      double finish_s = 0.0;
      if (state_->comm_measured && task.kind == TaskKind::collective) {
        // The traced kernel's own duration: what the rank saw, waiting for peers included.
        record.comm = static_cast<std::uint32_t>(state_->workload->communicator(rank_, task.slot));
        record.seq = task.seq;
        finish_s = record.start_s + static_cast<double>(task.duration_ns) * 1e-9;
      } else {
        finish_s = communicate(task, record);
      }
      if (point_to_point) {
        // The interval too starts with the transfer: the wait before it is idle time.
        record.start_s = sg4::Engine::get_clock();
        rt.begin_comm(task.slot, record.start_s);
        if (!task.reserved_sms)
          ++rt.comm_kernels_on_sms;
        if (features != nullptr)
          rt.collective_began(features);
        comm_changed(rt);
      }
      if (finish_s > sg4::Engine::get_clock())
        sg4::this_actor::sleep_until(finish_s);
      record.end_s = sg4::Engine::get_clock();
      rt.end_comm(task.slot, record.end_s);
      if (!task.reserved_sms)
        --rt.comm_kernels_on_sms;
      if (features != nullptr)
        rt.collective_ended(features);
      comm_changed(rt);
      if (state_->record)
        state_->intervals.push_back(record);
      finish(rt, 1);
      ++pos;
    }
  } catch (const UserError& e) {
    // Stop the whole run: the first user error is reported, the other actors are killed.
    if (!state_->error && !state_->internal_error)
      state_->error = e;
    sg4::Actor::kill_all();
  } catch (const std::exception& e) {
    // An exception must not leave an actor (SimGrid would abort): carry it out of the run.
    if (!state_->error && !state_->internal_error)
      state_->internal_error = e.what();
    sg4::Actor::kill_all();
  }
}

} // namespace echo::core
