#include "workloads/tracer/process_trace.hpp"

#include "workloads/kernel_category.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace echo::workloads::tracer {

namespace {

constexpr std::uint64_t kNoTask = 0;

struct Window {
  std::uint64_t start_ns = 0, end_ns = ~std::uint64_t{0};
  std::int64_t thread = -1;
  bool contains(std::uint64_t t) const { return t >= start_ns && t < end_ns; }
  bool closed() const { return end_ns != ~std::uint64_t{0}; }
};

// The last complete cudaProfilerStart / Stop range (an unfinished last one runs to the end).
std::optional<Window> capture_window(const ActivityLog& log) {
  if (log.captures.empty())
    return std::nullopt;
  const CaptureRange& c = log.captures.back();
  return Window{c.start_ns, c.end_ns > c.start_ns ? c.end_ns : ~std::uint64_t{0}, c.thread};
}

const char* op_name(NcclOp op) {
  if (op.transfer != Transfer::none)
    return op.transfer == Transfer::send ? "ncclSend" : "ncclRecv";
  switch (op.collective) {
  case trace::ALL_GATHER: return "ncclAllGather";
  case trace::REDUCE_SCATTER: return "ncclReduceScatter";
  case trace::BROADCAST: return "ncclBroadcast";
  case trace::REDUCE: return "ncclReduce";
  case trace::ALL_TO_ALL: return "ncclAlltoAll";
  default: return "ncclAllReduce";
  }
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

class Builder {
public:
  Builder(const ActivityLog& log, ProcessTraceStats& stats) : log_(log), stats_(stats) {}

  trace::Trace build() {
    select_window();
    index_comms();
    trace::Trace t;
    t.set_name("cupti");
    tmpl_ = t.add_templates();
    tmpl_->set_name(log_.launcher_rank >= 0 ? "rank" + std::to_string(log_.launcher_rank) : "pid" + std::to_string(log_.pid));
    emit_gpu_work();
    emit_calls_without_kernel();
    add_stream_waits();
    emit_host_threads();
    t.set_measured_iteration_ns(measured_span());
    stats_.own_gpu_busy_ns = own_gpu_busy();
    stats_.carried_in = static_cast<std::uint64_t>(std::count_if(work_.begin(), work_.end(), [](const Work& w) { return w.carried; }));
    t.set_dropped_records(log_.dropped_records);
    trace::TracedProcess& p = *t.mutable_process();
    p.set_pid(log_.pid);
    p.set_launcher_rank(log_.launcher_rank);
    p.set_host(log_.host);
    for (const CommInit& c : log_.comms) {
      trace::CommMembership& m = *p.add_comms();
      m.set_id(c.id);
      m.set_rank(c.rank);
      m.set_size(c.size);
    }
    return t;
  }

private:
  // A GPU activity kept in the window, with the tasks it became.
  struct Work {
    const GpuActivity* activity;
    std::uint64_t launch_ns;
    std::uint32_t thread;
    bool has_launch;
    std::uint64_t first_task = kNoTask, last_task = kNoTask;
    bool carried = false;  // launched before the window, still running when it opened
  };

  void select_window() {
    const auto window = capture_window(log_);
    for (const ApiCall& a : log_.api)
      if (!window || window->contains(a.start_ns))
        api_[a.correlation] = &a;
    std::unordered_set<std::uint32_t> launched_before;
    if (window)
      for (const ApiCall& a : log_.api)
        if (a.start_ns < window->start_ns)
          launched_before.insert(a.correlation);
    for (const GpuActivity& g : log_.gpu) {
      const auto it = api_.find(g.correlation);
      if (window && g.end_ns > window->start_ns && launched_before.count(g.correlation)) {
        work_.push_back({&g, g.start_ns, 0, false, kNoTask, kNoTask, true});
        continue;
      }
      if (it == api_.end() && window && !window->contains(g.start_ns))
        continue;
      if (it == api_.end() && window && !log_.api.empty())
        continue;  // its launch call is outside the window (or was not recorded)
      work_.push_back({&g, it != api_.end() ? it->second->start_ns : g.start_ns, it != api_.end() ? it->second->thread : 0,
                       it != api_.end(), kNoTask, kNoTask});
    }
    // Launch order is correlation order: CUPTI numbers the API calls as they are made.
    std::stable_sort(work_.begin(), work_.end(),
                     [](const Work& a, const Work& b) { return a.activity->correlation < b.activity->correlation; });
    origin_ns_ = window ? window->start_ns : ~std::uint64_t{0};
    if (!window) {
      for (const Work& w : work_)
        origin_ns_ = std::min(origin_ns_, std::min(w.launch_ns, w.activity->start_ns));
      if (origin_ns_ == ~std::uint64_t{0})
        origin_ns_ = 0;
    }
    for (const ExternalCorrelation& e : log_.external)
      launch_of_correlation_[e.correlation] = e.external;
    for (std::size_t i = 0; i < log_.nccl.size(); ++i)
      calls_of_launch_[log_.nccl[i].launch].push_back(i);
    for (const EventRecord& r : log_.event_records)
      records_of_event_[r.event].push_back(&r);
    for (auto& [event, list] : records_of_event_)
      std::stable_sort(list.begin(), list.end(), [](const EventRecord* a, const EventRecord* b) { return a->correlation < b->correlation; });
  }

  void index_comms() {
    for (const CommInit& c : log_.comms)
      comm_of_handle_[c.comm] = &c;
  }

  std::string slot_of(std::uint64_t comm) const {
    const auto it = comm_of_handle_.find(comm);
    return it != comm_of_handle_.end() ? it->second->id : "nccl-comm-" + hex(comm);
  }

  std::uint64_t comm_size(std::uint64_t comm) const {
    const auto it = comm_of_handle_.find(comm);
    return it != comm_of_handle_.end() ? it->second->size : 1;
  }

  std::uint32_t stream_index(const std::string& name) {
    const auto [it, added] = stream_of_name_.emplace(name, static_cast<std::uint32_t>(tmpl_->streams_size()));
    if (added)
      tmpl_->add_streams(name);
    return it->second;
  }

  trace::Task& add_task(std::uint32_t stream, const std::string& name, trace::Category category) {
    trace::Task& t = *tmpl_->add_tasks();
    t.set_id(next_id_++);
    t.set_stream(stream);
    t.set_name(name);
    t.set_category(category);
    task_of_id_.push_back(&t);
    last_on_stream_[stream] = t.id();
    return t;
  }

  std::uint64_t add_nccl_task(const NcclCall& call, std::uint32_t stream, std::uint64_t measured_ns) {
    trace::Task& t = add_task(stream, op_name(call.op), trace::COMMUNICATION);
    const std::uint64_t bytes = call.count * call.dtype_bytes;
    if (call.op.transfer != Transfer::none) {
      trace::PeerTransfer& p = call.op.transfer == Transfer::send ? *t.mutable_send() : *t.mutable_recv();
      p.set_comm(slot_of(call.comm));
      p.set_peer(call.peer);
      p.set_bytes(bytes);
      p.set_dtype(static_cast<trace::DataType>(call.dtype));
      return t.id();
    }
    trace::Collective& c = *t.mutable_collective();
    c.set_op(call.op.collective);
    c.set_comm(slot_of(call.comm));
    // trace.proto counts AllGather by its output, ReduceScatter by its input and AllToAll by the
    // whole send buffer: each is the per-rank count NCCL takes times the communicator size.
    const bool per_rank = call.op.collective == trace::ALL_GATHER || call.op.collective == trace::REDUCE_SCATTER ||
                          call.op.collective == trace::ALL_TO_ALL;
    c.set_bytes(per_rank ? bytes * comm_size(call.comm) : bytes);
    c.set_dtype(static_cast<trace::DataType>(call.dtype));
    c.set_root(call.root);
    c.set_measured_duration_ns(measured_ns);
    return t.id();
  }

  void emit_gpu_work() {
    std::map<std::uint32_t, std::uint64_t> carried_until;  // per GPU stream
    for (Work& w : work_) {
      const GpuActivity& g = *w.activity;
      const std::string& name = g.name < log_.names.size() ? log_.names[g.name] : std::string("kernel");
      const std::uint32_t stream = stream_index("stream " + std::to_string(g.stream));
      const std::uint64_t duration = g.end_ns > g.start_ns ? g.end_ns - g.start_ns : 0;
      w.first_task = next_id_;
      const std::vector<std::size_t>* calls = nccl_calls_of(g);
      if (w.carried) {
        // Work of the previous iteration, up to its real end: what ran before the window opened
        // is gone, and so is nothing else (an idle time before it on its stream is kept in it).
        std::uint64_t& from = carried_until.emplace(g.stream, origin_ns_).first->second;
        add_task(stream, "in flight at the window's start: " + name.substr(0, 60), trace::CARRY_IN)
            .mutable_compute()
            ->set_duration_ns(g.end_ns > from ? g.end_ns - from : 0);
        from = std::max(from, g.end_ns);
      } else if (calls != nullptr) {
        emit_calls(*calls, stream, "stream " + std::to_string(g.stream), duration);
        kernel_launches_.insert(launch_of_correlation_.at(g.correlation));
      } else {
        const trace::Category category = g.kind == GpuActivityKind::kernel ? kernel_category(name) : trace::MEMCPY;
        add_task(stream, name, category).mutable_compute()->set_duration_ns(duration);
        ++stats_.kernels;
        if (g.kind == GpuActivityKind::kernel && lowercase(name).rfind("nccl", 0) == 0)
          ++stats_.nccl_kernels_without_call;
      }
      w.last_task = next_id_ - 1;
      on_stream_[g.stream].push_back(&w);
    }
  }

  // The calls one NCCL launch ran, on `stream`, sharing the kernel's `duration` by bytes. NCCL
  // runs a group's receives alongside its sends: they go on a stream of their own that starts
  // with the group, and a step at the group's end joins them.
  void emit_calls(const std::vector<std::size_t>& calls, std::uint32_t stream, const std::string& stream_name, std::uint64_t duration) {
    std::uint64_t group_bytes = 0;
    for (std::size_t i : calls)
      group_bytes += log_.nccl[i].count * log_.nccl[i].dtype_bytes;
    const auto last = last_on_stream_.find(stream);
    const std::uint64_t before_group = last != last_on_stream_.end() ? last->second : kNoTask;
    std::vector<std::uint64_t> receives;
    for (std::size_t i : calls) {
      const NcclCall& call = log_.nccl[i];
      const double share = group_bytes > 0 ? static_cast<double>(call.count * call.dtype_bytes) / static_cast<double>(group_bytes)
                                           : 1.0 / static_cast<double>(calls.size());
      const bool receive = call.op.transfer == Transfer::recv && calls.size() > 1;
      const std::uint32_t on = receive ? stream_index(stream_name + " grouped recv") : stream;
      const std::uint64_t id = add_nccl_task(call, on, static_cast<std::uint64_t>(static_cast<double>(duration) * share));
      if (receive) {
        add_dep(id, before_group);
        receives.push_back(id);
      }
      ++stats_.nccl_calls;
    }
    if (receives.empty())
      return;
    trace::Task& end = add_task(stream, "ncclGroupEnd", trace::OTHER);
    end.mutable_compute()->set_duration_ns(0);
    for (std::uint64_t r : receives)
      add_dep(end.id(), r);
  }

  const std::vector<std::size_t>* nccl_calls_of(const GpuActivity& g) const {
    if (g.kind != GpuActivityKind::kernel)
      return nullptr;
    const auto launch = launch_of_correlation_.find(g.correlation);
    if (launch == launch_of_correlation_.end())
      return nullptr;
    const auto calls = calls_of_launch_.find(launch->second);
    return calls != calls_of_launch_.end() ? &calls->second : nullptr;
  }

  // Without CUPTI (or with its records dropped) an NCCL call is still known from the interposer.
  void emit_calls_without_kernel() {
    // With a capture window the calls' times are unknown, so a call whose kernel fell outside the
    // window is not this iteration's (and without CUPTI there is no window).
    if (capture_window(log_))
      return;
    for (const auto& [launch, calls] : calls_of_launch_) {
      if (kernel_launches_.count(launch))
        continue;
      const std::string name = "nccl stream " + hex(log_.nccl[calls.front()].stream);
      emit_calls(calls, stream_index(name), name, 0);
      stats_.nccl_calls_without_kernel += calls.size();
    }
  }

  // The last work launched on `stream` before the call with correlation `before`.
  const Work* last_before(std::uint32_t stream, std::uint32_t before) const {
    const auto it = on_stream_.find(stream);
    if (it == on_stream_.end())
      return nullptr;
    const auto& list = it->second;
    const auto at = std::lower_bound(list.begin(), list.end(), before,
                                     [](const Work* w, std::uint32_t c) { return w->activity->correlation < c; });
    return at == list.begin() ? nullptr : *(at - 1);
  }

  const Work* first_after(std::uint32_t stream, std::uint32_t after) const {
    const auto it = on_stream_.find(stream);
    if (it == on_stream_.end())
      return nullptr;
    const auto& list = it->second;
    const auto at = std::upper_bound(list.begin(), list.end(), after,
                                     [](std::uint32_t c, const Work* w) { return c < w->activity->correlation; });
    return at == list.end() ? nullptr : *at;
  }

  // The task that finishes the work launched on `stream` before `before` (work carried in from
  // before the window included).
  const Work* done_before(std::uint32_t stream, std::uint32_t before) const { return last_before(stream, before); }

  // What an event stood for when `at` happened: the work before its latest record before `at`.
  const Work* event_target(std::uint32_t event, std::uint32_t at) const {
    const auto it = records_of_event_.find(event);
    if (it == records_of_event_.end())
      return nullptr;
    const auto& list = it->second;  // in correlation order
    const auto after = std::lower_bound(list.begin(), list.end(), at,
                                        [](const EventRecord* r, std::uint32_t c) { return r->correlation < c; });
    if (after == list.begin())
      return nullptr;
    const EventRecord* latest = *(after - 1);
    return done_before(latest->stream, latest->correlation);
  }

  void add_dep(std::uint64_t task, std::uint64_t on) {
    if (task != kNoTask && on != kNoTask && task != on)
      task_of_id_[task - 1]->add_deps(on);
  }

  // Every task `work` became waits for `on` (a group's receives run on a stream of their own).
  void gate(const Work& work, std::uint64_t on) {
    if (work.carried)
      return;  // its end is the measured one: what it waited for is history
    for (std::uint64_t t = work.first_task; t != kNoTask && t <= work.last_task; ++t)
      add_dep(t, on);
  }

  void add_stream_waits() {
    for (const Synchronization& s : log_.syncs) {
      if (s.kind != SyncKind::stream_wait_event)
        continue;
      const Work* target = event_target(s.event, s.correlation);
      const Work* next = first_after(s.stream, s.correlation);
      if (target != nullptr && next != nullptr)
        gate(*next, target->last_task);
    }
  }

  // What a host-side wait waited for.
  std::vector<const Work*> awaited(const Synchronization& s) const {
    std::vector<const Work*> out;
    if (s.kind == SyncKind::event_synchronize) {
      out.push_back(event_target(s.event, s.correlation));
    } else if (s.kind == SyncKind::stream_synchronize) {
      out.push_back(done_before(s.stream, s.correlation));
    } else if (s.kind == SyncKind::context_synchronize) {
      for (const auto& [stream, list] : on_stream_)
        out.push_back(done_before(stream, s.correlation));
    }
    out.erase(std::remove(out.begin(), out.end(), nullptr), out.end());
    return out;
  }

  void emit_host_threads() {
    // Per thread, in time order: the launches of kept work and the host-side waits.
    struct HostStep {
      std::uint64_t start_ns, end_ns;
      Work* launch;
      const Synchronization* sync;
    };
    std::map<std::uint32_t, std::vector<HostStep>> steps;
    const auto window = capture_window(log_);
    if (window && window->closed() && window->thread >= 0)
      steps[static_cast<std::uint32_t>(window->thread)];  // the thread that closes the window has a tail
    for (Work& w : work_)
      if (w.has_launch)
        steps[w.thread].push_back({w.launch_ns, w.launch_ns, &w, nullptr});
    for (const Synchronization& s : log_.syncs) {
      if (s.kind == SyncKind::stream_wait_event)
        continue;
      const auto call = api_.find(s.correlation);
      if (call != api_.end())
        steps[call->second->thread].push_back({s.start_ns, s.end_ns, nullptr, &s});
    }
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> waits_for;  // launch -> launches it follows
    for (const LaunchOrder& o : log_.launch_orders)
      waits_for[o.after].push_back(o.before);
    struct Launched {
      std::uint64_t task;
      std::uint32_t thread;
    };
    std::unordered_map<std::uint32_t, Launched> launched_by;  // launch correlation -> the host task ending at it
    struct Join {
      std::uint64_t task;
      std::uint32_t thread, before;
    };
    std::vector<Join> joins;  // a join task, its thread, the launch it waits for
    for (auto& [thread, list] : steps) {
      std::stable_sort(list.begin(), list.end(), [](const HostStep& a, const HostStep& b) { return a.start_ns < b.start_ns; });
      const std::uint32_t stream = stream_index("host thread " + std::to_string(thread));
      std::uint64_t previous = origin_ns_;
      for (const HostStep& step : list) {
        const std::uint64_t gap = step.start_ns > previous ? step.start_ns - previous : 0;
        if (step.launch != nullptr) {
          const std::string& name = log_.names[step.launch->activity->name];
          trace::Task& h = add_task(stream, "host until launch of " + name.substr(0, 60), trace::HOST);
          h.mutable_compute()->set_duration_ns(gap);
          const std::uint32_t correlation = step.launch->activity->correlation;
          launched_by[correlation] = {h.id(), thread};
          std::uint64_t gate_task = h.id();
          if (const auto w = waits_for.find(correlation); w != waits_for.end()) {
            // The launch also waits until another thread has made the launches it follows.
            trace::Task& join = add_task(stream, "host waits for another thread", trace::HOST);
            join.mutable_compute()->set_duration_ns(0);
            for (std::uint32_t before : w->second)
              joins.push_back({join.id(), thread, before});
            gate_task = join.id();
          }
          gate(*step.launch, gate_task);
          previous = std::max(previous, step.start_ns);
        } else {
          add_task(stream, "host until synchronize", trace::HOST).mutable_compute()->set_duration_ns(gap);
          trace::Task& wait = add_task(stream, "host synchronize", trace::HOST);
          wait.mutable_compute()->set_duration_ns(0);
          // The host resumes when the awaited work is done; what the call took besides (returning
          // after the work ended, or all of it when nothing was left to wait for) is host time.
          std::uint64_t released = 0;
          for (const Work* w : awaited(*step.sync)) {
            add_dep(wait.id(), w->last_task);
            released = std::max(released, w->activity->end_ns);
          }
          previous = std::max(previous, std::clamp(released, step.start_ns, step.end_ns));
        }
      }
      // The window's own thread is busy until it closes the window (the rest of the profiler step).
      if (window && window->closed() && static_cast<std::int64_t>(thread) == window->thread && window->end_ns > previous)
        add_task(stream, "host until the window's end", trace::HOST).mutable_compute()->set_duration_ns(window->end_ns - previous);
    }
    // Only across threads: a thread's own launches are in order already.
    for (const Join& j : joins)
      if (const auto b = launched_by.find(j.before); b != launched_by.end() && b->second.thread != j.thread)
        add_dep(j.task, b->second.task);
  }

  std::uint64_t measured_span() const {
    std::uint64_t last = origin_ns_;
    for (const Work& w : work_)
      last = std::max(last, w.activity->end_ns);
    return last - origin_ns_;
  }

  std::uint64_t own_gpu_busy() const {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
    for (const Work& w : work_)
      if (!w.carried)
        spans.emplace_back(std::max(w.activity->start_ns, origin_ns_), w.activity->end_ns);
    std::sort(spans.begin(), spans.end());
    std::uint64_t busy = 0, reached = origin_ns_;
    for (const auto& [from, to] : spans) {
      busy += to > std::max(from, reached) ? to - std::max(from, reached) : 0;
      reached = std::max(reached, to);
    }
    return busy;
  }

  const ActivityLog& log_;
  ProcessTraceStats& stats_;
  trace::RankTemplate* tmpl_ = nullptr;
  std::unordered_map<std::uint32_t, const ApiCall*> api_;
  std::vector<Work> work_;
  std::uint64_t origin_ns_ = 0;
  std::unordered_map<std::uint32_t, std::uint64_t> launch_of_correlation_;
  std::map<std::uint64_t, std::vector<std::size_t>> calls_of_launch_;
  std::unordered_map<std::uint32_t, std::vector<const EventRecord*>> records_of_event_;
  std::set<std::uint64_t> kernel_launches_;
  std::map<std::uint64_t, const CommInit*> comm_of_handle_;
  std::map<std::string, std::uint32_t> stream_of_name_;
  std::map<std::uint32_t, std::vector<Work*>> on_stream_;
  std::vector<trace::Task*> task_of_id_;
  std::map<std::uint32_t, std::uint64_t> last_on_stream_;
  std::uint64_t next_id_ = 1;
};

} // namespace

trace::Trace process_trace(const ActivityLog& log, ProcessTraceStats* stats) {
  ProcessTraceStats local;
  return Builder(log, stats != nullptr ? *stats : local).build();
}

} // namespace echo::workloads::tracer
