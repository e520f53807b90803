#include "workloads/importers/kineto_reader.hpp"

#include "workloads/importers/execution_trace.hpp"
#include "workloads/importers/kineto_collectives.hpp"
#include "workloads/importers/kineto_events.hpp"
#include "workloads/kernel_category.hpp"
#include "workloads/tracer/process_trace.hpp"

#include "base/user_error.hpp"

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace echo::workloads {

namespace {

using kineto::CommCall;
using kineto::CommResolver;
using kineto::FileEvents;
using kineto::GpuEvent;
using kineto::RuntimeCall;
using kineto::Step;

constexpr std::int64_t kWaitWindowNs = 20000;

// Correlation ids are spaced by this factor so that the event records, waits and synthetic calls
// inferred below fit between two real calls (they are ordered by correlation, as launches are).
constexpr std::uint32_t kSpacing = 4;

// The element count NCCL takes for the op, from PyTorch's message sizes (process_trace.hpp counts
// AllGather, ReduceScatter and AllToAll per rank, as NCCL does).
std::uint64_t nccl_count(const CommCall& c) {
  const auto group = static_cast<std::int64_t>(std::max<std::size_t>(1, c.ranks.size()));
  std::int64_t n = c.in_nelems;
  if (c.op == trace::REDUCE_SCATTER)
    n = c.out_nelems >= 0 ? c.out_nelems : c.in_nelems / group;
  else if (c.op == trace::ALL_TO_ALL)
    n = c.in_nelems / group;
  return static_cast<std::uint64_t>(std::max<std::int64_t>(0, n));
}

tracer::NcclOp nccl_op(const CommCall& c) { return c.p2p != kineto::PointToPoint::none ? tracer::NcclOp::side(c.p2p) : tracer::NcclOp::of(c.op); }

bool is_nccl_kernel(const GpuEvent& g) {
  return g.category == "kernel" && (!g.collective.empty() || lowercase(g.name).rfind("nccl", 0) == 0);
}

// A process group as the files describe it: its slot and members.
struct Group {
  std::string slot;
  std::vector<std::uint32_t> ranks;
};

// One file's step as the records the CUPTI tracer would have made (workloads/tracer/), so that one
// conversion turns both into a trace.
class StepRecords {
public:
  StepRecords(const std::string& path, const FileEvents& f, const Step& step, int rank, int world,
              std::map<std::string, Group>& groups, const kineto::ExecutionTrace* et)
      : path_(path), f_(f), step_(step), rank_(rank), groups_(groups), resolver_(path, f, rank, world, et) {
    number_correlations();
    log_.launcher_rank = rank;
    log_.captures.push_back({static_cast<std::uint64_t>(step.start_ns), static_cast<std::uint64_t>(step.end_ns),
                             step.thread >= 0 ? static_cast<std::int64_t>(static_cast<std::uint32_t>(step.thread)) : -1});
    for (const RuntimeCall& c : f.calls)
      log_.api.push_back({corr(c.correlation), static_cast<std::uint32_t>(c.thread), static_cast<std::uint64_t>(c.start_ns),
                          static_cast<std::uint64_t>(c.end_ns)});
    std::unordered_map<std::int64_t, std::int64_t> launched_at;
    for (const RuntimeCall& c : f.calls)
      launched_at.emplace(c.correlation, c.start_ns);
    auto in_step = [&](const GpuEvent& g) {
      const auto it = launched_at.find(g.correlation);
      return it != launched_at.end() && it->second >= step.start_ns && it->second <= step.end_ns;
    };
    std::map<std::string, std::uint32_t> names;
    for (const GpuEvent& g : f.gpu) {
      const auto [it, fresh] = names.emplace(g.name, static_cast<std::uint32_t>(log_.names.size()));
      if (fresh)
        log_.names.push_back(g.name);
      const auto kind = g.category == "kernel" ? tracer::GpuActivityKind::kernel
                        : g.category == "gpu_memset" ? tracer::GpuActivityKind::memset : tracer::GpuActivityKind::memcpy;
      log_.gpu.push_back({kind, it->second, static_cast<std::uint32_t>(g.stream), corr(g.correlation),
                          static_cast<std::uint64_t>(g.start_ns), static_cast<std::uint64_t>(g.start_ns + g.dur_ns)});
      if (is_nccl_kernel(g) && in_step(g))  // others are not this step's calls (or carried in as work)
        add_nccl_call(g);
    }
    // Stream waits are exact when Kineto says which record they waited on; older Kineto does not.
    const bool exact = std::any_of(f.syncs.begin(), f.syncs.end(), [](const GpuEvent& s) { return s.wait_on_record >= 0; });
    add_traced_syncs(exact);
    if (!exact)
      infer_process_group_waits();
    infer_host_waits();
    if (et != nullptr)
      order_threads(*et);
  }

  tracer::ActivityLog& log() { return log_; }
  std::vector<std::string> notes() const {
    std::vector<std::string> out = resolver_.notes();
    if (thread_orders_ > 0)
      out.push_back(std::filesystem::path(path_).filename().string() + ": " + std::to_string(thread_orders_) +
                    " launches wait for another host thread's launches (the Execution Trace's data dependencies)");
    if (inferred_host_waits_ > 0)
      out.push_back(std::filesystem::path(path_).filename().string() + ": " + std::to_string(inferred_host_waits_) +
                    " blocking CUDA calls (synchronize, synchronous copies) without cuda_sync events: the GPU work each "
                    "waited for was inferred from the call and when it returned");
    return out;
  }

private:
  // Kineto's correlation ids, renumbered densely in their order and spaced by kSpacing (they may
  // be large; the records hold 32 bits, as CUPTI's do).
  void number_correlations() {
    std::vector<std::int64_t> all;
    for (const RuntimeCall& c : f_.calls)
      all.push_back(c.correlation);
    for (const GpuEvent& g : f_.gpu)
      all.push_back(g.correlation);
    for (const GpuEvent& s : f_.syncs) {
      all.push_back(s.correlation);
      all.push_back(s.wait_on_record);
    }
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    for (std::size_t i = 0; i < all.size(); ++i)
      dense_.emplace(all[i], static_cast<std::uint32_t>((i + 1) * kSpacing));
  }
  std::uint32_t corr(std::int64_t c) const { return dense_.at(c); }

  // The NCCL call behind a kernel (kineto_collectives.hpp); a kernel whose call cannot be told
  // stays a kernel with its measured time, and the notes say so.
  void add_nccl_call(const GpuEvent& g) {
    const std::optional<CommCall> resolved = resolver_.resolve(g);
    if (!resolved)
      return;
    const CommCall& call = *resolved;
    const std::string name = call.slot + "." + std::to_string(call.ranks.front());
    const auto [known, fresh] = groups_.emplace(name, Group{call.slot, call.ranks});
    if (!fresh && known->second.ranks != call.ranks)
      throw UserError(path_, 0, "process group " + call.slot + " lists different ranks in two events",
                      "export the trace again; every event of a group should name the same ranks");
    const auto [comm, first] = comm_of_slot_.emplace(call.slot, comm_of_slot_.size() + 1);
    if (first) {
      const auto me = std::find(call.ranks.begin(), call.ranks.end(), static_cast<std::uint32_t>(rank_));
      log_.comms.push_back({comm->second, call.slot, static_cast<std::uint32_t>(me - call.ranks.begin()),
                            static_cast<std::uint32_t>(call.ranks.size())});
    }
    tracer::NcclCall c;
    c.op = nccl_op(call);
    c.launch = static_cast<std::uint64_t>(g.correlation);
    c.comm = comm->second;
    c.count = call.p2p != kineto::PointToPoint::none ? static_cast<std::uint64_t>(std::max<std::int64_t>(0, call.in_nelems))
                                                      : nccl_count(call);
    c.dtype = static_cast<std::uint8_t>(call.dtype.type);
    c.dtype_bytes = static_cast<std::uint8_t>(call.dtype.bytes);
    if (call.p2p != kineto::PointToPoint::none)
      c.peer = static_cast<std::uint32_t>(call.peer_member);
    log_.nccl.push_back(c);
    log_.external.push_back({corr(g.correlation), c.launch});
    ++collectives;
  }

public:
  std::uint64_t collectives = 0;

private:
  // Kineto's cuda_sync events (enable_cuda_sync_events): the waits exactly as the program made them
  // — host-side synchronisations always, stream waits when `with_stream_waits`.
  void add_traced_syncs(bool with_stream_waits) {
    std::uint32_t next_event = 1;
    std::map<std::int64_t, std::uint32_t> event_of_record;  // record correlation -> event
    for (const GpuEvent& s : f_.syncs) {
      tracer::Synchronization sync;
      if (s.name == "Stream Wait Event" && with_stream_waits)
        sync.kind = tracer::SyncKind::stream_wait_event;
      else if (s.name == "Event Sync")
        sync.kind = tracer::SyncKind::event_synchronize;
      else if (s.name == "Stream Sync")
        sync.kind = tracer::SyncKind::stream_synchronize;
      else if (s.name == "Context Sync")
        sync.kind = tracer::SyncKind::context_synchronize;
      else
        continue;  // a stream wait without its record (older Kineto): inferred instead
      sync.correlation = corr(s.correlation);
      sync.stream = static_cast<std::uint32_t>(s.stream);
      sync.start_ns = static_cast<std::uint64_t>(s.start_ns);
      sync.end_ns = static_cast<std::uint64_t>(s.start_ns + s.dur_ns);
      if (s.wait_on_record >= 0 && s.wait_on_stream >= 0) {
        const auto [it, fresh] = event_of_record.emplace(s.wait_on_record, next_event);
        if (fresh) {
          log_.event_records.push_back({corr(s.wait_on_record), next_event++, static_cast<std::uint32_t>(s.wait_on_stream)});
        }
        sync.event = it->second;
      }
      log_.syncs.push_back(sync);
      traced_sync_calls_.insert(s.correlation);
    }
  }

  // Without cuda_sync events, the waits ProcessGroupNCCL makes with CUDA events are inferred: a
  // collective waits for the last work launched before it on every other stream, if that had
  // ended when the collective started; work that started at most 20 us after a collective
  // launched before it ended waited for it (the compute stream's wait on the collective's work).
  void infer_process_group_waits() {
    std::map<std::uint32_t, std::vector<const tracer::GpuActivity*>> by_stream;
    for (const auto& g : log_.gpu)
      by_stream[g.stream].push_back(&g);
    for (auto& [stream, list] : by_stream)
      std::sort(list.begin(), list.end(), [](const auto* a, const auto* b) { return a->correlation < b->correlation; });
    std::set<std::uint32_t> collective;
    for (const auto& e : log_.external)
      collective.insert(e.correlation);
    std::uint32_t next_event = 1;
    for (const auto& g : log_.gpu) {
      for (const auto& [other, list] : by_stream) {
        if (other == g.stream)
          continue;
        const auto at = std::lower_bound(list.begin(), list.end(), g.correlation,
                                         [](const auto* w, std::uint32_t c) { return w->correlation < c; });
        if (at == list.begin())
          continue;
        const tracer::GpuActivity& before = **(at - 1);
        if (before.end_ns > g.start_ns)
          continue;
        const bool waited = collective.count(g.correlation) ||
                            (collective.count(before.correlation) && g.start_ns - before.end_ns <= kWaitWindowNs);
        if (!waited)
          continue;
        // Recorded on `other` just before `g`'s launch, waited on by `g`'s stream right before it.
        log_.event_records.push_back({g.correlation - 2, next_event, other});
        log_.syncs.push_back({tracer::SyncKind::stream_wait_event, g.correlation - 1, g.stream, next_event++, 0, 0});
      }
    }
    infer_gated_starts(by_stream, next_event);
  }

  // Any GPU work that started well after both its launch and the end of the work before it on its
  // stream was held by a wait on another stream (cudaStreamWaitEvent): on the work of another
  // stream that ended just before it started, launched before it.
  void infer_gated_starts(const std::map<std::uint32_t, std::vector<const tracer::GpuActivity*>>& by_stream,
                          std::uint32_t& next_event) {
    constexpr std::uint64_t kHeldNs = 10000, kReleaseNs = 20000;
    std::unordered_map<std::uint32_t, std::uint64_t> launched_at;
    for (const auto& a : log_.api)
      launched_at.emplace(a.correlation, a.start_ns);
    for (const auto& [stream, list] : by_stream)
      for (std::size_t i = 0; i < list.size(); ++i) {
        const tracer::GpuActivity& g = *list[i];
        const auto launch = launched_at.find(g.correlation);
        if (launch == launched_at.end())
          continue;
        const std::uint64_t ready = std::max(launch->second, i > 0 ? list[i - 1]->end_ns : 0);
        if (g.start_ns < ready + kHeldNs)
          continue;
        const tracer::GpuActivity* release = nullptr;
        for (const auto& [other, others] : by_stream) {
          if (other == stream)
            continue;
          // The last work on `other` that ended by the time `g` started (one stream's work is serial).
          auto at = std::upper_bound(others.begin(), others.end(), g.start_ns,
                                     [](std::uint64_t t, const tracer::GpuActivity* w) { return t < w->end_ns; });
          for (; at != others.begin(); --at) {
            const tracer::GpuActivity* w = *(at - 1);
            if (w->end_ns + kReleaseNs < g.start_ns)
              break;
            if (w->correlation < g.correlation && (release == nullptr || w->end_ns > release->end_ns)) {
              release = w;
              break;
            }
          }
        }
        if (release == nullptr)
          continue;
        log_.event_records.push_back({release->correlation + 2, next_event, release->stream});
        log_.syncs.push_back({tracer::SyncKind::stream_wait_event, g.correlation - 1, g.stream, next_event++, 0, 0});
      }
  }

  // Blocking calls that Kineto did not describe with a cuda_sync event are waits on the GPU all the
  // same: the host resumes when the awaited work is done, so a faster or slower GPU moves it.
  // - a synchronous copy (cudaMemcpy, or a copy to or from pageable memory, as `.item()` and
  //   `.cpu()` make) whose call lasted until its copy (nearly) ended waits for that copy;
  // - cudaDeviceSynchronize waits for every stream;
  // - cudaStreamSynchronize / cudaEventSynchronize, whose stream the trace does not name, wait for
  //   the stream whose last work launched before the call ended while the call was waiting (the
  //   latest-ending one before it otherwise).
  void infer_host_waits() {
    std::unordered_map<std::int64_t, const GpuEvent*> copy_of;
    std::map<std::int64_t, std::vector<const GpuEvent*>> by_stream;
    for (const GpuEvent& g : f_.gpu) {
      if (g.category == "gpu_memcpy")
        copy_of.emplace(g.correlation, &g);
      by_stream[g.stream].push_back(&g);
    }
    for (auto& [stream, list] : by_stream)
      std::sort(list.begin(), list.end(), [](const GpuEvent* a, const GpuEvent* b) { return a->correlation < b->correlation; });
    for (const RuntimeCall& c : f_.calls) {
      if (traced_sync_calls_.count(c.correlation) || c.start_ns < step_.start_ns || c.start_ns > step_.end_ns)
        continue;
      tracer::Synchronization sync;
      sync.start_ns = static_cast<std::uint64_t>(c.start_ns);
      sync.end_ns = static_cast<std::uint64_t>(c.end_ns);
      sync.correlation = corr(c.correlation);
      if (const auto copy = copy_of.find(c.correlation); copy != copy_of.end()) {
        const GpuEvent& g = *copy->second;
        const bool blocking = c.kind == kineto::CallKind::memcpy_sync || g.name.find("DtoH") != std::string::npos ||
                              g.name.find("Pageable") != std::string::npos;
        const std::int64_t copy_end = g.start_ns + g.dur_ns;
        if (!blocking || 2 * (c.end_ns - c.start_ns) < copy_end - c.start_ns)
          continue;
        // A call of its own just after the launch, so that the wait follows the copy it launched.
        sync.kind = tracer::SyncKind::stream_synchronize;
        sync.stream = static_cast<std::uint32_t>(g.stream);
        sync.correlation += 1;
        log_.api.push_back({sync.correlation, static_cast<std::uint32_t>(c.thread), sync.start_ns, sync.end_ns});
      } else if (c.kind == kineto::CallKind::device_sync) {
        sync.kind = tracer::SyncKind::context_synchronize;
      } else if (c.kind == kineto::CallKind::stream_sync || c.kind == kineto::CallKind::event_sync) {
        const GpuEvent* awaited = nullptr;
        bool ended_inside = false;
        for (const auto& [stream, list] : by_stream) {
          const auto at = std::lower_bound(list.begin(), list.end(), c.correlation,
                                           [](const GpuEvent* g, std::int64_t x) { return g->correlation < x; });
          if (at == list.begin())
            continue;
          const GpuEvent* last = *(at - 1);
          const std::int64_t end = last->start_ns + last->dur_ns;
          const bool inside = end >= c.start_ns && end <= c.end_ns + kWaitWindowNs;
          if (end > c.end_ns + kWaitWindowNs)
            continue;  // still running after the call returned: not what it waited for
          if (awaited == nullptr || (inside && !ended_inside) ||
              (inside == ended_inside && end > awaited->start_ns + awaited->dur_ns)) {
            awaited = last;
            ended_inside = inside;
          }
        }
        if (awaited == nullptr)
          continue;
        sync.kind = tracer::SyncKind::stream_synchronize;
        sync.stream = static_cast<std::uint32_t>(awaited->stream);
      } else {
        continue;
      }
      log_.syncs.push_back(sync);
      ++inferred_host_waits_;
    }
  }

  // The Execution Trace's data dependencies between host threads, as launch orders: the first
  // launch of the reading op waits for the last launch of the writing op.
  void order_threads(const kineto::ExecutionTrace& et) {
    std::unordered_set<std::int64_t> gpu;
    for (const GpuEvent& g : f_.gpu)
      gpu.insert(g.correlation);
    std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> launches;  // thread -> (time, correlation)
    for (const RuntimeCall& c : f_.calls)
      if (gpu.count(c.correlation))
        launches[c.thread].emplace_back(c.start_ns, c.correlation);
    for (auto& [thread, list] : launches)
      std::sort(list.begin(), list.end());
    auto inside = [&](const kineto::OpSpan& op, bool last) -> const std::pair<std::int64_t, std::int64_t>* {
      const auto it = launches.find(op.thread);
      if (it == launches.end())
        return nullptr;
      const auto& list = it->second;
      const auto from = std::lower_bound(list.begin(), list.end(), std::make_pair(op.start_ns, std::int64_t{-1}));
      const auto to = std::upper_bound(list.begin(), list.end(), std::make_pair(op.end_ns, std::numeric_limits<std::int64_t>::max()));
      if (from == to)
        return nullptr;
      return last ? &*(to - 1) : &*from;
    };
    for (const kineto::EtThreadDependency& d : et.across_threads) {
      const auto producer = f_.ops_by_record.find(d.producer), consumer = f_.ops_by_record.find(d.consumer);
      if (producer == f_.ops_by_record.end() || consumer == f_.ops_by_record.end() || producer->second.thread == consumer->second.thread)
        continue;
      const auto* before = inside(producer->second, true);
      const auto* after = inside(consumer->second, false);
      if (before != nullptr && after != nullptr && before->first < after->first) {
        log_.launch_orders.push_back({corr(before->second), corr(after->second)});
        ++thread_orders_;
      }
    }
  }

  const std::string& path_;
  const FileEvents& f_;
  const Step step_;
  int rank_;
  std::map<std::string, Group>& groups_;
  CommResolver resolver_;
  std::map<std::string, std::uint64_t> comm_of_slot_;
  std::unordered_map<std::int64_t, std::uint32_t> dense_;
  std::set<std::int64_t> traced_sync_calls_;
  std::uint64_t inferred_host_waits_ = 0, thread_orders_ = 0;
  tracer::ActivityLog log_;
};

// When each call that launched GPU work was made, in time order.
std::vector<std::int64_t> launch_times(const FileEvents& f) {
  std::unordered_set<std::int64_t> gpu;
  for (const GpuEvent& g : f.gpu)
    gpu.insert(g.correlation);
  std::vector<std::int64_t> out;
  for (const RuntimeCall& c : f.calls)
    if (gpu.count(c.correlation))
      out.push_back(c.start_ns);
  std::sort(out.begin(), out.end());
  return out;
}

// Whether any GPU work was launched inside [start, end].
bool launches_inside(const std::vector<std::int64_t>& launches, std::int64_t start, std::int64_t end) {
  const auto it = std::lower_bound(launches.begin(), launches.end(), start);
  return it != launches.end() && *it <= end;
}

std::string milliseconds(std::int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1e6);
  return buf;
}

// The step to replay: ProfilerStep#`step` when asked for; else the step of median duration among
// those that launched GPU work, the first profiled one aside (a typical iteration: the first is
// often a warm-up, the last may be cut short); the whole trace window when the trace has no
// ProfilerStep at all.
Step choose_step(const std::string& path, const FileEvents& f, int step, const std::string& wanted_name,
                 std::vector<std::string>* notes) {
  if (f.gpu.empty())
    throw UserError(path, 0,
                    "the trace has no GPU event (kernel, memcpy, memset): it was profiled without CUDA activities, or "
                    "on a device whose events it does not hold",
                    "profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]");
  const std::string file = std::filesystem::path(path).filename().string();
  if (f.steps.empty()) {
    if (step >= 0)
      throw UserError(path, 0, "the trace has no ProfilerStep#" + std::to_string(step) + " (it has no ProfilerStep at all)",
                      "leave `step` out to replay the whole trace window");
    if (notes != nullptr)
      notes->push_back(file + ": the trace has no ProfilerStep annotation; its whole window (" +
                       milliseconds(f.last_ns - f.first_ns) + " ms) is replayed as one iteration");
    return Step{"the whole trace", f.first_ns, f.last_ns, -1};
  }
  const std::string asked = step >= 0 ? "ProfilerStep#" + std::to_string(step) : wanted_name;
  if (!asked.empty()) {
    for (const Step& s : f.steps)
      if (s.name == asked)
        return s;
    if (step >= 0)
      throw UserError(path, 0, "the trace has no " + asked, "pick one of the steps it has (the first is " + f.steps.front().name + ")");
  }
  const std::vector<std::int64_t> launches = launch_times(f);
  std::vector<const Step*> candidates;
  for (const Step& s : f.steps)
    if (launches_inside(launches, s.start_ns, s.end_ns))
      candidates.push_back(&s);
  // What the GPU still ran from the step before the first profiled one is not in the trace, so
  // the first step cannot start in its real state: another is taken where there is one.
  if (candidates.size() > 1 && candidates.front() == &f.steps.front())
    candidates.erase(candidates.begin());
  if (candidates.empty())
    throw UserError(path, 0, "no GPU work was launched inside any of its " + std::to_string(f.steps.size()) + " ProfilerSteps",
                    "profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] and GPU work in the steps");
  std::vector<const Step*> by_duration = candidates;
  std::stable_sort(by_duration.begin(), by_duration.end(),
                   [](const Step* a, const Step* b) { return a->end_ns - a->start_ns < b->end_ns - b->start_ns; });
  const Step& median = *by_duration[(by_duration.size() - 1) / 2];
  if (notes != nullptr && candidates.size() > 1)
    notes->push_back(file + ": " + median.name + " is replayed, the median of " + std::to_string(candidates.size()) +
                     " profiled steps with GPU work (" + milliseconds(by_duration.front()->end_ns - by_duration.front()->start_ns) +
                     " to " + milliseconds(by_duration.back()->end_ns - by_duration.back()->start_ns) +
                     " ms); `step: N` picks another");
  return median;
}

// Ranks no file covers run a traced rank's program, so each of its process groups needs an
// instance holding them: the traced instance's shape (its ranks relative to its first) laid over
// the uncovered ranks, lowest first — consecutive blocks stay blocks, strided groups stay strided.
void tile_untraced_ranks(std::map<std::string, Group>& groups, std::uint32_t world, const std::string& path,
                         std::vector<std::string>& notes) {
  std::map<std::string, std::vector<const Group*>> by_slot;
  for (const auto& [name, group] : groups)
    by_slot[group.slot].push_back(&group);
  std::map<std::string, Group> added;
  for (const auto& [slot, instances] : by_slot) {
    std::vector<bool> covered(world, false);
    for (const Group* g : instances)
      for (std::uint32_t r : g->ranks)
        covered[r] = true;
    std::vector<std::uint32_t> offsets;
    for (std::uint32_t r : instances.front()->ranks)
      offsets.push_back(r - instances.front()->ranks.front());
    std::uint32_t tiles = 0;
    for (std::uint32_t first = 0; first < world; ++first) {
      if (covered[first])
        continue;
      Group g{slot, {}};
      for (std::uint32_t o : offsets)
        if (first + o < world && !covered[first + o])
          g.ranks.push_back(first + o);
      if (g.ranks.size() != offsets.size())
        throw UserError(path, 0,
                        "process group " + slot + " of the traced ranks (" + std::to_string(offsets.size()) +
                            " ranks) cannot be laid over the untraced ranks of the " + std::to_string(world) +
                            "-rank world: rank " + std::to_string(first) + " would have no group",
                        "give the files of every rank, or `replicate: {dp: N}` to replay the traced ranks as one replica");
      for (std::uint32_t r : g.ranks)
        covered[r] = true;
      added.emplace(slot + "." + std::to_string(first), std::move(g));
      ++tiles;
    }
    if (tiles > 0)
      notes.push_back("process group " + slot + ": " + std::to_string(tiles) +
                      " more instances of the traced one's shape hold the untraced ranks, which replay the first file's program");
  }
  groups.merge(added);
}

int world_of(const std::vector<FileEvents>& files) {
  int world = static_cast<int>(files.size());
  for (const FileEvents& f : files)
    world = std::max({world, f.world_size, f.rank + 1});
  return world;
}

} // namespace

KinetoKernels kineto_kernels(const std::string& file, int step) {
  double bytes = 0;
  const FileEvents f = kineto::read_file(file, bytes);
  const Step chosen = choose_step(file, f, step, "", nullptr);
  // The step's GPU work is what was launched inside it.
  std::unordered_map<std::int64_t, std::int64_t> launched_at;
  for (const RuntimeCall& c : f.calls)
    launched_at.emplace(c.correlation, c.start_ns);
  CommResolver resolver(file, f, std::max(0, f.rank), world_of({f}));
  KinetoKernels out;
  out.step = chosen.name;
  for (const GpuEvent& g : f.gpu) {
    const auto it = launched_at.find(g.correlation);
    if (it == launched_at.end() || it->second < chosen.start_ns || it->second > chosen.end_ns)
      continue;
    MeasuredKernel k;
    k.name = g.name;
    k.stream = g.stream;
    k.start_ns = g.start_ns;
    k.duration_ns = g.dur_ns;
    k.nccl = is_nccl_kernel(g);
    if (k.nccl)
      if (const auto call = resolver.resolve(g)) {
        k.op = call->op;
        // As trace.proto counts a collective's bytes: AllGather its output, the others their input.
        const std::int64_t elements = k.op == trace::ALL_GATHER ? call->out_nelems : call->in_nelems;
        k.bytes = static_cast<double>(std::max<std::int64_t>(0, elements)) * call->dtype.bytes;
      }
    out.kernels.push_back(std::move(k));
  }
  std::stable_sort(out.kernels.begin(), out.kernels.end(),
                   [](const MeasuredKernel& a, const MeasuredKernel& b) { return a.start_ns < b.start_ns; });
  if (out.kernels.empty())
    throw UserError(file, 0, "no GPU kernel was launched inside " + chosen.name, "pick another step with --step");
  return out;
}

KinetoImport read_kineto(const std::vector<std::string>& files, int step, const std::vector<std::string>& execution_traces) {
  KinetoImport result;
  trace::Trace& t = result.trace;
  t.set_name("kineto");
  if (!execution_traces.empty() && execution_traces.size() != files.size())
    throw UserError(execution_traces.front(), 0,
                    std::to_string(execution_traces.size()) + " PyTorch Execution Traces for " + std::to_string(files.size()) +
                        " Kineto files",
                    "give one Execution Trace per Kineto file, in the same order (the same rank's step)");
  std::vector<kineto::ExecutionTrace> ets;
  for (const std::string& path : execution_traces)
    ets.push_back(kineto::read_execution_trace(path));
  std::vector<FileEvents> parsed;
  parsed.reserve(files.size());
  for (const std::string& path : files)
    parsed.push_back(kineto::read_file(path, result.bytes_parsed, !execution_traces.empty()));
  for (std::size_t fi = 0; fi < files.size(); ++fi) {
    const FileEvents& f = parsed[fi];
    if (f.world_size > 0 && f.rank >= f.world_size)
      throw UserError(files[fi], 0,
                      "distributedInfo says rank " + std::to_string(f.rank) + " of a " + std::to_string(f.world_size) + "-rank world",
                      "give the trace as the profiler wrote it; its rank must be below world_size");
    if (f.world_size > 0 && parsed.front().world_size > 0 && f.world_size != parsed.front().world_size)
      throw UserError(files[fi], 0,
                      "its world_size is " + std::to_string(f.world_size) + ", but " + files.front() + " says " +
                          std::to_string(parsed.front().world_size),
                      "give the files of one run: every rank's distributedInfo names the same world");
  }
  const int world = world_of(parsed);
  std::map<std::string, Group> groups;  // communicator name -> slot and ranks
  std::vector<int> file_rank;
  std::vector<std::string> notes;
  std::uint64_t measured_ns = 0;
  for (std::size_t fi = 0; fi < files.size(); ++fi) {
    const std::string& path = files[fi];
    const FileEvents& f = parsed[fi];
    // Every file replays the step the first one chose, so that their calls line up.
    const Step chosen = choose_step(path, f, step, fi == 0 ? std::string() : result.step, fi == 0 ? &notes : nullptr);
    if (fi == 0)
      result.step = chosen.name;
    const int rank = f.rank >= 0 ? f.rank : static_cast<int>(fi);
    if (std::find(file_rank.begin(), file_rank.end(), rank) != file_rank.end())
      throw UserError(path, 0, "two files are rank " + std::to_string(rank) + " (distributedInfo.rank)",
                      "give one file per rank");
    file_rank.push_back(rank);
    StepRecords records(path, f, chosen, rank, world, groups, ets.empty() ? nullptr : &ets[fi]);
    tracer::ProcessTraceStats stats;
    trace::Trace one = tracer::process_trace(records.log(), &stats);
    if (one.templates(0).tasks_size() == 0 || stats.kernels + stats.nccl_calls == 0)
      throw UserError(path, 0, "no GPU kernel was launched inside " + chosen.name, "pick another step with --step");
    one.mutable_templates(0)->set_name("rank" + std::to_string(rank));
    *t.add_templates() = std::move(*one.mutable_templates(0));
    // The reference is the step as users read it, the ProfilerStep's duration on the host — or,
    // for a step that began with its GPU idle (nothing carried in: not a steady state, where the
    // host waits for a GPU that lags it), the time its GPU was busy with the step's work where
    // that is longer: the host ran ahead and left the GPU working past the step's end (a lone
    // profiled step; the next step would have waited for it).
    const auto host_ns = static_cast<std::uint64_t>(std::max<std::int64_t>(0, chosen.end_ns - chosen.start_ns));
    const std::uint64_t gpu_ns = stats.carried_in == 0 ? stats.own_gpu_busy_ns : 0;
    measured_ns = std::max({measured_ns, host_ns, gpu_ns});
    if (fi == 0 && gpu_ns > host_ns + host_ns / 100)
      notes.push_back(std::filesystem::path(path).filename().string() + ": its GPU was busy with " + chosen.name + "'s work for " +
                      milliseconds(static_cast<std::int64_t>(stats.own_gpu_busy_ns)) + " ms, longer than the step's " +
                      milliseconds(static_cast<std::int64_t>(host_ns)) +
                      " ms on the host (the host ran ahead of its GPU): the measured iteration is the GPU's");
    result.kernels += stats.kernels;
    result.collectives += stats.nccl_calls;
    for (std::string& n : records.notes())
      notes.push_back(std::move(n));
  }
  // Ranks: the world the files describe; ranks no file covers run the first file's program.
  std::uint32_t ranks = static_cast<std::uint32_t>(world);
  for (const auto& [name, group] : groups)
    for (std::uint32_t r : group.ranks)
      ranks = std::max(ranks, r + 1);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const auto it = std::find(file_rank.begin(), file_rank.end(), static_cast<int>(r));
    trace::RankRange& range = *t.add_ranks();
    range.set_first(r);
    range.set_count(1);
    range.set_template_name(t.templates(it == file_rank.end() ? 0 : static_cast<int>(it - file_rank.begin())).name());
  }
  tile_untraced_ranks(groups, ranks, files.front(), notes);
  for (const auto& [name, group] : groups) {
    trace::Communicator& c = *t.add_communicators();
    c.set_name(name);
    c.set_slot(group.slot);
    for (std::uint32_t r : group.ranks)
      c.add_ranks(r);
  }
  t.set_measured_iteration_ns(measured_ns);
  if (std::optional<std::string> n = communication_kernels_note(t))
    notes.push_back(std::move(*n));
  for (std::string& n : notes)
    t.add_import_notes(std::move(n));
  result.notes.assign(t.import_notes().begin(), t.import_notes().end());
  for (int r : file_rank)
    result.traced_ranks.push_back(static_cast<std::uint32_t>(r));
  return result;
}

} // namespace echo::workloads
