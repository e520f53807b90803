#include "workloads/generator/host_thread.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace echo::workloads {

namespace {

constexpr double kUnknown = -std::numeric_limits<double>::infinity();

// Walks the template in issue order and writes the host thread beside it.
class HostThreadWriter {
public:
  HostThreadWriter(trace::RankTemplate& tmpl, const std::vector<double>& cost, bool gate_every_task)
      : tmpl_(tmpl), cost_(cost), gate_every_task_(gate_every_task), earliest_end_(static_cast<std::size_t>(tmpl.tasks_size()), kUnknown),
        epoch_of_(static_cast<std::size_t>(tmpl.tasks_size()), 0),
        last_on_stream_(static_cast<std::size_t>(tmpl.streams_size()), kNoTask), next_id_(static_cast<TaskId>(tmpl.tasks_size())) {
    host_stream_ = static_cast<std::uint32_t>(tmpl.streams_size());
    tmpl.add_streams(kHostStream);
  }

  // The host stops before task `before` until `awaited` (kNoTask: everything issued) has finished.
  void wait(TaskId before, TaskId awaited) {
    pay("host launches before waiting");
    trace::Task& t = host_task(awaited == kNoTask ? "host synchronizes the device"
                                                  : "host waits for " + tmpl_.tasks(static_cast<int>(awaited)).name(),
                               0);
    if (awaited != kNoTask)
      t.add_deps(awaited);
    else
      for (TaskId last : last_on_stream_)
        if (last != kNoTask && last < before)
          t.add_deps(last);
    // What ran before the wait has ended by the time the host goes on; how long before is
    // unknown, so nothing earlier bounds what follows.
    ++epoch_;
    clock_s_ = 0;
  }

  void issue(int i) {
    const trace::Task& t = tmpl_.tasks(i);
    const std::size_t index = static_cast<std::size_t>(i);
    clock_s_ += cost_[index];
    unpaid_s_ += cost_[index];
    double ready = end_of(last_on_stream_[t.stream()]);
    for (TaskId d : t.deps())
      ready = std::max(ready, end_of(d));
    double start = ready;
    if (gate_every_task_ || ready < clock_s_) {
      pay("launch of " + t.name());
      if (last_host_ != kNoTask) {
        gates_.emplace_back(static_cast<TaskId>(i), last_host_);
        start = std::max(ready, clock_s_);
      }
    }
    earliest_end_[index] = start + (t.has_compute() ? static_cast<double>(t.compute().duration_ns()) * 1e-9 : 0.0);
    epoch_of_[index] = epoch_;
    last_on_stream_[t.stream()] = static_cast<TaskId>(i);
    order_.push_back(static_cast<TaskId>(i));
  }

  void finish() {
    pay("host after the last launch");
    // Tasks in their new order, numbered by position. Ids are dense (GPU tasks, then host tasks),
    // so the renumbering is a table; the tasks are moved, not copied (a template holds ~10^5).
    std::vector<TaskId> renumbered(next_id_, kNoTask);
    for (std::size_t k = 0; k < order_.size(); ++k)
      renumbered[order_[k]] = static_cast<TaskId>(k);
    const int gpu_tasks = tmpl_.tasks_size();
    std::vector<trace::Task*> gpu(static_cast<std::size_t>(gpu_tasks));
    tmpl_.mutable_tasks()->ExtractSubrange(0, gpu_tasks, gpu.data());
    google::protobuf::RepeatedPtrField<trace::Task> out;
    out.Reserve(static_cast<int>(order_.size()));
    auto gate = gates_.begin();  // in issue order, as GPU tasks are in order_
    for (TaskId id : order_) {
      trace::Task* t = nullptr;
      if (id < static_cast<TaskId>(gpu_tasks)) {
        t = gpu[id];
        for (; gate != gates_.end() && gate->first == id; ++gate)
          t->add_deps(gate->second);
      } else {
        t = new trace::Task(std::move(host_tasks_[id - gpu_tasks]));
      }
      t->set_id(renumbered[id]);
      for (auto& d : *t->mutable_deps())
        d = renumbered[d];
      out.AddAllocated(t);
    }
    tmpl_.mutable_tasks()->Swap(&out);
  }

private:
  double end_of(TaskId task) const {
    if (task == kNoTask || task >= earliest_end_.size() || epoch_of_[task] != epoch_)
      return kUnknown;
    return earliest_end_[task];
  }

  // The host's launches since its last task become one host task.
  void pay(const std::string& name) {
    if (unpaid_s_ <= 0)
      return;
    host_task(name, unpaid_s_);
    unpaid_s_ = 0;
  }

  trace::Task& host_task(const std::string& name, double seconds) {
    trace::Task& t = host_tasks_.emplace_back();
    t.set_id(next_id_);
    t.set_stream(host_stream_);
    t.set_name(name.substr(0, 120));
    t.set_category(trace::HOST);
    t.mutable_compute()->set_duration_ns(static_cast<std::uint64_t>(std::llround(seconds * 1e9)));
    last_host_ = next_id_;
    order_.push_back(next_id_++);
    return t;
  }

  trace::RankTemplate& tmpl_;
  const std::vector<double>& cost_;
  bool gate_every_task_;
  // Per GPU task: the earliest it can end, relative to the host going on after its last wait (the
  // epoch), were every task to start at its launch or when its inputs are done.
  std::vector<double> earliest_end_;
  std::vector<std::uint32_t> epoch_of_;
  std::vector<TaskId> last_on_stream_;
  std::uint32_t host_stream_ = 0, epoch_ = 1;
  double clock_s_ = 0;   // host time since the epoch began
  double unpaid_s_ = 0;  // launch cost not yet in a host task
  TaskId next_id_;
  TaskId last_host_ = kNoTask;
  std::vector<trace::Task> host_tasks_;  // ids from the template's size on, in order
  std::vector<std::pair<TaskId, TaskId>> gates_;  // GPU task, the host task it waits for
  std::vector<TaskId> order_;
};

} // namespace

void add_host_thread(trace::RankTemplate& tmpl, const std::vector<double>& launch_cost_s, const std::vector<HostWait>& waits,
                     bool gate_every_task) {
  HostThreadWriter writer(tmpl, launch_cost_s, gate_every_task);
  std::size_t w = 0;
  for (int i = 0; i < tmpl.tasks_size(); ++i) {
    for (; w < waits.size() && waits[w].before == static_cast<TaskId>(i); ++w)
      writer.wait(waits[w].before, waits[w].awaited);
    writer.issue(i);
  }
  writer.finish();
}

} // namespace echo::workloads
