#include "core/schedule_run.hpp"

#include <algorithm>

namespace echo::core {

ScheduleRun::ScheduleRun(std::shared_ptr<const collectives::Schedule> schedule, StepGate* gate)
    : schedule_(std::move(schedule)), gate_(gate) {
  const auto& ix = schedule_->index();
  const std::uint32_t members = schedule_->members();
  gates_ = ix.gates;
  start_s_.assign(schedule_->steps().size(), 0.0);
  left_s_.assign(schedule_->steps().size(), 0.0);
  if (!ix.streamed.empty()) {
    streams_open_ = ix.streams_in;
    fixed_.assign(schedule_->steps().size(), 0);
  }
  arrival_s_.assign(members, -1.0);
  finish_s_.assign(members, 0.0);
  involved_left_ = ix.involved;
  finish_known_.assign(members, 0);
}

std::uint32_t ScheduleRun::arrive(std::uint32_t member, double now_s, std::vector<std::uint32_t>& finished) {
  const std::uint32_t before = resolved_;
  arrival_s_[member] = now_s;
  finish_s_[member] = std::max(finish_s_[member], now_s + schedule_->base_latency_s());
  ++arrivals_;
  last_arrival_s_ = std::max(last_arrival_s_, now_s);
  if (first_arrival_s_ < 0 || now_s < first_arrival_s_)
    first_arrival_s_ = now_s;
  if (schedule_->is_barrier()) {
    if (arrivals_ == schedule_->members())
      for (std::uint32_t m = 0; m < schedule_->members(); ++m) {
        finish_s_[m] = last_arrival_s_ + schedule_->barrier_s();
        finish_known_[m] = 1;
        finished.push_back(m);
      }
    return 0;
  }
  const auto& ix = schedule_->index();
  for (std::uint32_t k = ix.waiting_begin[member]; k < ix.waiting_begin[member + 1]; ++k)
    if (--gates_[ix.waiting[k]] == 0)
      worklist_.push_back(ix.waiting[k]);
  drain(finished);
  settle_member(member, finished);
  return resolved_ - before;
}

std::uint32_t ScheduleRun::commit(std::uint32_t step, double serialize_s, std::vector<std::uint32_t>& finished) {
  const std::uint32_t before = resolved_;
  fix(step, serialize_s, finished);
  drain(finished);
  return resolved_ - before;
}

void ScheduleRun::drain(std::vector<std::uint32_t>& finished) {
  while (!worklist_.empty() || !completable_.empty()) {
    if (!completable_.empty()) {
      const std::uint32_t step = completable_.back();
      completable_.pop_back();
      complete(step, finished);
      continue;
    }
    const std::uint32_t step = worklist_.back();
    worklist_.pop_back();
    resolve(step, finished);
  }
}

void ScheduleRun::resolve(std::uint32_t step, std::vector<std::uint32_t>& finished) {
  const auto& steps = schedule_->steps();
  const collectives::Step& s = steps[step];
  double start = arrival_s_[s.member];
  if (s.rendezvous)
    start = std::max(start, arrival_s_[s.peer]);
  start += schedule_->base_latency_s();
  for (const collectives::StepDep& d : schedule_->deps(s)) {
    const collectives::Step& dep = steps[d.step];
    switch (d.kind) {
    case collectives::DepKind::data: start = std::max(start, left_s_[d.step] + dep.latency_s); break;
    case collectives::DepKind::order: start = std::max(start, left_s_[d.step]); break;
    case collectives::DepKind::stream: start = std::max(start, start_s_[d.step] + dep.unit_s + dep.latency_s); break;
    }
  }
  start_s_[step] = start;
  const auto& ix = schedule_->index();
  if (!ix.streamed.empty())
    for (std::uint32_t k = ix.streamed_begin[step]; k < ix.streamed_begin[step + 1]; ++k)
      if (--gates_[ix.streamed[k]] == 0)
        worklist_.push_back(ix.streamed[k]);
  std::optional<double> serialize = s.serialize_s;
  if (gate_ != nullptr && !(serialize = gate_->admit(step, start, s.serialize_s)))
    return;  // the gate commits it later
  fix(step, *serialize, finished);
}

void ScheduleRun::fix(std::uint32_t step, double serialize_s, std::vector<std::uint32_t>& finished) {
  left_s_[step] = start_s_[step] + serialize_s;
  if (streams_open_.empty()) {
    complete(step, finished);
    return;
  }
  fixed_[step] = 1;
  if (streams_open_[step] == 0)
    complete(step, finished);
}

void ScheduleRun::complete(std::uint32_t step, std::vector<std::uint32_t>& finished) {
  const auto& steps = schedule_->steps();
  const collectives::Step& s = steps[step];
  double left = left_s_[step];
  if (!streams_open_.empty())
    for (const collectives::StepDep& d : schedule_->deps(s))
      if (d.kind == collectives::DepKind::stream)
        left = std::max(left, left_s_[d.step] + steps[d.step].latency_s + s.unit_s);
  left_s_[step] = left;
  ++resolved_;
  // A symmetric schedule's member also receives, as its peer does, at left + latency.
  finish_s_[s.member] = std::max(finish_s_[s.member], schedule_->symmetric() ? left + s.latency_s : left);
  finish_s_[s.peer] = std::max(finish_s_[s.peer], left + s.latency_s);
  --involved_left_[s.member];
  --involved_left_[s.peer];
  settle_member(s.member, finished);
  settle_member(s.peer, finished);

  const auto& ix = schedule_->index();
  for (std::uint32_t k = ix.dependents_begin[step]; k < ix.dependents_begin[step + 1]; ++k)
    if (--gates_[ix.dependents[k]] == 0)
      worklist_.push_back(ix.dependents[k]);
  if (!ix.streamed.empty())
    for (std::uint32_t k = ix.streamed_begin[step]; k < ix.streamed_begin[step + 1]; ++k) {
      const std::uint32_t next = ix.streamed[k];
      if (--streams_open_[next] == 0 && fixed_[next] != 0)
        completable_.push_back(next);
    }
}

void ScheduleRun::settle_member(std::uint32_t member, std::vector<std::uint32_t>& finished) {
  if (finish_known_[member] == 0 && involved_left_[member] == 0 && arrived(member)) {
    finish_known_[member] = 1;
    finished.push_back(member);
  }
}

double ScheduleRun::last_finish_s() const { return *std::max_element(finish_s_.begin(), finish_s_.end()); }

double uncontended_time_s(collectives::Schedule schedule) {
  const std::uint32_t members = schedule.members();
  ScheduleRun run(std::make_shared<const collectives::Schedule>(std::move(schedule)));
  std::vector<std::uint32_t> finished;
  for (std::uint32_t m = 0; m < members; ++m)
    run.arrive(m, 0.0, finished);
  double slowest = 0.0;
  for (std::uint32_t m = 0; m < members; ++m)
    slowest = std::max(slowest, run.finish_s(m));
  return slowest;
}

} // namespace echo::core
