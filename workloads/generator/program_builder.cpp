#include "workloads/generator/program_builder.hpp"

#include "workloads/kernel_category.hpp"

#include <cmath>

namespace echo::workloads {

std::uint32_t ProgramBuilder::stream_index(const std::string& stream) {
  for (int i = 0; i < tmpl_.streams_size(); ++i)
    if (tmpl_.streams(i) == stream)
      return static_cast<std::uint32_t>(i);
  tmpl_.add_streams(stream);
  last_of_stream_.push_back(kNoTask);
  return static_cast<std::uint32_t>(tmpl_.streams_size() - 1);
}

trace::Task& ProgramBuilder::append(const std::string& stream, const std::string& name, std::initializer_list<TaskId> deps) {
  const std::uint32_t s = stream_index(stream);
  trace::Task& t = *tmpl_.add_tasks();
  t.set_id(next_id_);
  t.set_stream(s);
  t.set_name(name);
  for (TaskId d : deps)
    if (d != kNoTask)
      t.add_deps(d);
  launch_costs_.push_back(collective_launch_cost_s_);  // compute() sets its own
  last_of_stream_[s] = next_id_++;
  return t;
}

TaskId ProgramBuilder::compute(const std::string& stream, const KernelOp& op, double time_s, std::initializer_list<TaskId> deps) {
  if (pending_host_wait_) {
    host_waits_.push_back({next_id_, pending_awaited_});
    pending_host_wait_ = false;
  }
  trace::Task& t = append(stream, op.name, deps);
  launch_costs_.back() = launch_cost_s_;
  t.set_category(op.category);
  t.mutable_compute()->set_duration_ns(static_cast<std::uint64_t>(std::llround(time_s * 1e9)));
  compute_s_ += time_s;
  seconds_by_kind_[op.kind.empty() ? lowercase(trace::Category_Name(op.category)) : op.kind] += time_s;
  return t.id();
}

TaskId ProgramBuilder::collective(const std::string& stream, const std::string& name, trace::CollectiveOp op,
                                  const std::string& slot, double bytes, std::initializer_list<TaskId> deps) {
  trace::Task& t = append(stream, name, deps);
  t.set_category(trace::COMMUNICATION);
  auto& c = *t.mutable_collective();
  c.set_op(op);
  c.set_comm(slot);
  c.set_bytes(static_cast<std::uint64_t>(std::llround(bytes)));
  c.set_dtype(dtype_);
  return t.id();
}

TaskId ProgramBuilder::transfer(bool sending, const std::string& stream, const std::string& name, const std::string& slot,
                                std::uint32_t peer, double bytes, std::initializer_list<TaskId> deps) {
  trace::Task& t = append(stream, name, deps);
  t.set_category(trace::COMMUNICATION);
  auto& p = sending ? *t.mutable_send() : *t.mutable_recv();
  p.set_comm(slot);
  p.set_peer(peer);
  p.set_bytes(static_cast<std::uint64_t>(std::llround(bytes)));
  p.set_dtype(dtype_);
  return t.id();
}

void ProgramBuilder::add_dependency(TaskId task, TaskId dep) {
  if (dep != kNoTask)
    tmpl_.mutable_tasks(static_cast<int>(task))->add_deps(dep);
}

TaskId ProgramBuilder::last(const std::string& stream) const {
  for (int i = 0; i < tmpl_.streams_size(); ++i)
    if (tmpl_.streams(i) == stream)
      return last_of_stream_[static_cast<std::size_t>(i)];
  return kNoTask;
}

} // namespace echo::workloads
