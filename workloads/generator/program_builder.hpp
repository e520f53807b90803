#pragma once
// ProgramBuilder: appends tasks to one rank template of a trace — streams by name, ids in issue
// order, dependencies as the ids of earlier tasks. The generator speaks in kernels and collectives;
// this turns them into trace::Task messages.
#include "proto/trace.pb.h"
#include "workloads/generator/kernel_op.hpp"

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

namespace echo::workloads {

using TaskId = std::uint64_t;
inline constexpr TaskId kNoTask = ~TaskId{0};

// The host thread stops before launching task `before` until `awaited` has finished on the GPU
// (a `.item()` on its result); kNoTask: until every task issued so far has (a device synchronize).
struct HostWait {
  TaskId before = 0;
  TaskId awaited = kNoTask;
};

class ProgramBuilder {
public:
  ProgramBuilder(trace::RankTemplate& tmpl, trace::DataType dtype) : tmpl_(tmpl), dtype_(dtype) {}

  // Dependencies equal to kNoTask are skipped, so optional predecessors can be passed as they are.
  TaskId compute(const std::string& stream, const KernelOp& op, double time_s, std::initializer_list<TaskId> deps = {});
  TaskId collective(const std::string& stream, const std::string& name, trace::CollectiveOp op, const std::string& slot,
                    double bytes, std::initializer_list<TaskId> deps = {});
  TaskId send(const std::string& stream, const std::string& name, const std::string& slot, std::uint32_t peer, double bytes,
              std::initializer_list<TaskId> deps = {}) {
    return transfer(true, stream, name, slot, peer, bytes, deps);
  }
  TaskId recv(const std::string& stream, const std::string& name, const std::string& slot, std::uint32_t peer, double bytes,
              std::initializer_list<TaskId> deps = {}) {
    return transfer(false, stream, name, slot, peer, bytes, deps);
  }
  // Adds a dependency to a task already appended (a kernel that turns out to need a later-issued
  // transfer, e.g. the first layer of a pass waiting for its parameters).
  void add_dependency(TaskId task, TaskId dep);
  // A compute task that holds every SM while it runs; a collective on SMs set aside for it
  // (trace.proto Compute.fills_gpu, Collective.reserved_sms).
  void set_fills_gpu(TaskId task) { tmpl_.mutable_tasks(static_cast<int>(task))->mutable_compute()->set_fills_gpu(true); }
  void set_reserved_sms(TaskId task) { tmpl_.mutable_tasks(static_cast<int>(task))->mutable_collective()->set_reserved_sms(true); }

  // The host thread (host_thread.hpp): what launching each task costs it from now on, and where it
  // waits for the GPU — before launching the next compute kernel.
  void set_launch_cost(double seconds) { launch_cost_s_ = seconds; }
  void set_collective_launch_cost(double seconds) { collective_launch_cost_s_ = seconds; }
  void host_waits_before_next_kernel(TaskId awaited = kNoTask) {
    const bool device_sync_pending = pending_host_wait_ && pending_awaited_ == kNoTask;
    pending_host_wait_ = true;
    if (!device_sync_pending)  // a device synchronize already covers any single task
      pending_awaited_ = awaited;
  }
  const std::vector<double>& launch_costs() const { return launch_costs_; }
  const std::vector<HostWait>& host_waits() const { return host_waits_; }

  // Last task appended to a stream (kNoTask if none).
  TaskId last(const std::string& stream) const;
  std::uint64_t size() const { return next_id_; }
  double compute_s() const { return compute_s_; }
  // Kernel seconds by what they do (KernelOp::kind, else the category), for the summary.
  const std::map<std::string, double>& seconds_by_kind() const { return seconds_by_kind_; }

private:
  TaskId transfer(bool sending, const std::string& stream, const std::string& name, const std::string& slot, std::uint32_t peer,
                  double bytes, std::initializer_list<TaskId> deps);
  trace::Task& append(const std::string& stream, const std::string& name, std::initializer_list<TaskId> deps);
  std::uint32_t stream_index(const std::string& stream);

  trace::RankTemplate& tmpl_;
  trace::DataType dtype_;
  std::vector<TaskId> last_of_stream_;
  TaskId next_id_ = 0;
  double compute_s_ = 0;
  std::map<std::string, double> seconds_by_kind_;
  double launch_cost_s_ = 0, collective_launch_cost_s_ = 0;
  std::vector<double> launch_costs_;  // per task id
  std::vector<HostWait> host_waits_;
  bool pending_host_wait_ = false;
  TaskId pending_awaited_ = kNoTask;
};

} // namespace echo::workloads
