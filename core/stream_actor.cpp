#include "core/stream_actor.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <mutex>

namespace echo::core {

namespace sg4 = simgrid::s4u;
using workloads::ProgramTask;
using workloads::TaskKind;

void StreamActor::wait_for_dependencies(RankRuntime& rt, const ProgramTask& task) const {
  if (rt.ready(task))
    return;
  ++rt.dependency_waiters;
  std::unique_lock lock(*state_->mutex);
  while (!rt.ready(task))
    rt.dependency_signal().wait(lock);
  --rt.dependency_waiters;
}

double StreamActor::communicate(RankRuntime& rt, const ProgramTask& task, Interval& record) const {
  const workloads::Workload& w = *state_->workload;
  const auto comm = static_cast<std::uint32_t>(w.communicator(rank_, task.slot));
  if (task.kind == TaskKind::collective) {
    const std::uint64_t seq = rt.next_call_seq(task.slot);
    record.comm = comm;
    record.seq = seq;
    return state_->matcher->await_collective(rank_, task, comm, seq);
  }
  const std::uint32_t peer = w.communicators[comm].ranks[task.peer_or_root];
  record.comm = peer;
  if (task.kind == TaskKind::send) {
    record.seq = rt.next_send_seq(peer);
    return state_->matcher->await_transfer(rank_, task, rank_, peer, record.seq);
  }
  record.seq = rt.next_recv_seq(peer);
  return state_->matcher->await_transfer(rank_, task, peer, rank_, record.seq);
}

void StreamActor::operator()() const {
  RankRuntime& rt = (*state_->ranks)[rank_];
  const workloads::RankProgram& program = rt.program();
  try {
    for (std::uint32_t index : program.stream_order[stream_]) {
      const ProgramTask& task = program.tasks[index];
      wait_for_dependencies(rt, task);

      Interval record{rank_, stream_, index, sg4::Engine::get_clock(), 0.0, 0, 0};
      const bool compute = task.kind == TaskKind::compute;
      rt.begin(compute, record.start_s);
      if (compute) {
        if (task.duration_ns > 0)
          sg4::this_actor::sleep_for(static_cast<double>(task.duration_ns) * 1e-9);
      } else {
        const double finish_s = communicate(rt, task, record);
        if (finish_s > sg4::Engine::get_clock())
          sg4::this_actor::sleep_until(finish_s);
      }
      record.end_s = sg4::Engine::get_clock();
      rt.end(compute, record.end_s);
      rt.finish_task(stream_);
      ++state_->tasks_done;
      if (rt.dependency_waiters > 0)
        rt.dependency_signal().notify_all();
      if (state_->record)
        state_->intervals.push_back(record);
    }
  } catch (const UserError& e) {
    // Stop the whole run: the first user error is reported, the other actors are killed.
    if (!state_->error)
      state_->error = e;
    sg4::Actor::kill_all();
  }
}

} // namespace echo::core
