#include "workloads/kineto_reader.hpp"

#include "workloads/json_array_stream.hpp"
#include "workloads/kernel_category.hpp"
#include "workloads/tracer/process_trace.hpp"

#include "base/user_error.hpp"

#include <simdjson.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

namespace echo::workloads {

namespace {

namespace sj = simdjson;

constexpr std::int64_t kWaitWindowNs = 20000;

struct GpuEvent {
  std::string name;
  std::int64_t stream = 0, start_ns = 0, dur_ns = 0, correlation = -1;
  std::string category;  // kernel, gpu_memcpy, gpu_memset, cuda_sync
  // NCCL args
  std::string collective, dtype, group_name, group_ranks;
  std::int64_t in_nelems = 0, out_nelems = 0, peer_rank = -1, p2p_global = -1;
  // cuda_sync args
  std::int64_t wait_on_stream = -1, wait_on_record = -1, wait_on_event = -1;
};

struct RuntimeCall {
  std::int64_t correlation = 0, thread = 0, start_ns = 0, end_ns = 0;
};

struct Step {
  std::string name;
  std::int64_t start_ns = 0, end_ns = 0;
};

struct FileEvents {
  std::vector<GpuEvent> gpu;
  std::vector<GpuEvent> syncs;  // cuda_sync events
  std::vector<RuntimeCall> calls;
  std::vector<Step> steps;
  int rank = -1;
};

// gzread reads plain files too; a damaged compressed file is the user's error.
class TraceFile {
public:
  explicit TraceFile(const std::string& path) : path_(path), f_(gzopen(path.c_str(), "rb")) {
    if (f_ == nullptr)
      throw UserError(path, 0, "cannot read the Kineto trace", "check the path");
    gzbuffer(f_, 1 << 18);
  }
  ~TraceFile() { gzclose(f_); }
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  std::size_t read(char* buf, std::size_t n) {
    const int got = gzread(f_, buf, static_cast<unsigned>(n));
    int err = 0;
    const char* message = gzerror(f_, &err);
    if (got < 0 || err < 0)
      throw UserError(path_, 0, std::string("the compressed Kineto trace is damaged: ") + (message ? message : "read error"),
                      "export the trace again");
    return static_cast<std::size_t>(got);
  }

private:
  std::string path_;
  gzFile f_;
};

std::int64_t ns(double us) { return std::llround(us * 1000.0); }

std::string_view text(sj::ondemand::value v) {
  std::string_view s;
  if (v.get_string().get(s) != sj::SUCCESS)
    return {};
  return s;
}

double number(sj::ondemand::value v) {
  double d = 0;
  if (v.get_double().get(d) == sj::SUCCESS)
    return d;
  std::int64_t i = 0;
  if (v.get_int64().get(i) == sj::SUCCESS)
    return static_cast<double>(i);
  return 0;
}

// PyTorch writes some integer args as strings ("Dst Rank": "3").
std::int64_t integer_arg(sj::ondemand::value v) {
  std::string_view s;
  if (v.get_string().get(s) == sj::SUCCESS) {
    std::int64_t out = -1;
    const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), out);
    return error == std::errc() ? out : -1;
  }
  return static_cast<std::int64_t>(number(v));
}

// The args of an event that matter here: the launch correlation, the stream, and NCCL's call.
void read_args(sj::ondemand::object& args, GpuEvent& g) {
  for (auto a : args) {
    const std::string_view k = a.unescaped_key();
    if (k == "correlation")
      g.correlation = static_cast<std::int64_t>(number(a.value()));
    else if (k == "stream")
      g.stream = static_cast<std::int64_t>(number(a.value()));
    else if (k == "Collective name")
      g.collective = std::string(text(a.value()));
    else if (k == "In msg nelems")
      g.in_nelems = static_cast<std::int64_t>(number(a.value()));
    else if (k == "Out msg nelems")
      g.out_nelems = static_cast<std::int64_t>(number(a.value()));
    else if (k == "dtype")
      g.dtype = std::string(text(a.value()));
    else if (k == "Process Group Name")
      g.group_name = std::string(text(a.value()));
    else if (k == "Process Group Ranks")
      g.group_ranks = std::string(text(a.value()));
    else if (k == "Dst Rank" || k == "Src Rank")  // send / recv: the peer's global rank
      g.p2p_global = integer_arg(a.value());
    else if (k == "Rank")
      g.peer_rank = integer_arg(a.value());
    else if (k == "wait_on_stream")
      g.wait_on_stream = static_cast<std::int64_t>(number(a.value()));
    else if (k == "wait_on_cuda_event_record_corr_id")
      g.wait_on_record = static_cast<std::int64_t>(number(a.value()));
    else if (k == "wait_on_cuda_event_id")
      g.wait_on_event = static_cast<std::int64_t>(number(a.value()));
  }
}

// The events of one batch (a JSON array of trace events), into `out`.
void read_events(sj::ondemand::array events, FileEvents& out) {
  for (auto e : events) {
    std::string_view ph, cat, name;
    double ts = 0, dur = 0;
    std::int64_t tid = 0;
    GpuEvent g;
    for (auto f : e.get_object()) {
      const std::string_view k = f.unescaped_key();
      if (k == "ph")
        ph = text(f.value());
      else if (k == "cat")
        cat = text(f.value());
      else if (k == "name")
        name = text(f.value());
      else if (k == "ts")
        ts = number(f.value());
      else if (k == "dur")
        dur = number(f.value());
      else if (k == "tid") {
        sj::ondemand::value v = f.value();
        tid = static_cast<std::int64_t>(number(v));
      } else if (k == "args") {
        sj::ondemand::object args;
        if (f.value().get_object().get(args) == sj::SUCCESS)
          read_args(args, g);
      }
    }
    if (ph != "X")
      continue;
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "cuda_sync") {
      g.name = std::string(name);
      if (g.stream == 0 && cat != "cuda_sync")
        g.stream = tid;
      g.start_ns = ns(ts);
      g.dur_ns = ns(dur);
      g.category = std::string(cat);
      (cat == "cuda_sync" ? out.syncs : out.gpu).push_back(std::move(g));
    } else if ((cat == "cuda_runtime" || cat == "cuda_driver") && g.correlation >= 0) {
      out.calls.push_back({g.correlation, tid, ns(ts), ns(ts + dur)});
    } else if ((cat == "user_annotation" || cat == "cpu_op") && name.rfind("ProfilerStep#", 0) == 0) {
      out.steps.push_back({std::string(name), ns(ts), ns(ts + dur)});
    }
  }
}

FileEvents parse(const std::string& path, double& bytes) {
  TraceFile file(path);
  FileEvents out;
  sj::ondemand::parser parser;
  try {
    const JsonArrayStreamResult r = stream_json_array(
        [&](char* buf, std::size_t n) { return file.read(buf, n); }, "traceEvents", 4u << 20,
        [&](const sj::padded_string& batch) {
          sj::ondemand::document doc = parser.iterate(batch);
          read_events(doc.get_array(), out);
        });
    bytes += static_cast<double>(r.bytes);
    if (!r.found)
      throw UserError(path, 0, "no traceEvents: not a Kineto / Chrome trace", "give the JSON the PyTorch profiler exported");
    // The rest of the object (distributedInfo, deviceProperties, ...) is small.
    const sj::padded_string rest(r.rest);
    sj::ondemand::document doc = parser.iterate(rest);
    for (auto field : doc.get_object())
      if (std::string_view(field.unescaped_key()) == "distributedInfo")
        for (auto f : field.value().get_object())
          if (std::string_view(f.unescaped_key()) == "rank")
            out.rank = static_cast<int>(number(f.value()));
  } catch (const sj::simdjson_error& e) {
    throw UserError(path, 0, std::string("malformed JSON: ") + e.what(), "give the JSON the PyTorch profiler exported");
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const UserError*>(&e) != nullptr)
      throw;
    throw UserError(path, 0, std::string("malformed JSON: ") + e.what(), "give the JSON the PyTorch profiler exported");
  }
  return out;
}

// From the `Collective name` arg, else from the kernel's name (ncclKernel_AllReduce_...).
trace::CollectiveOp op_of(const std::string& collective, const std::string& kernel) {
  const std::string lower = lowercase(collective.empty() ? kernel : collective);
  if (lower.find("allreduce") != std::string::npos || lower.find("all_reduce") != std::string::npos)
    return trace::ALL_REDUCE;
  if (lower.find("allgather") != std::string::npos || lower.find("all_gather") != std::string::npos)
    return trace::ALL_GATHER;
  if (lower.find("reducescatter") != std::string::npos || lower.find("reduce_scatter") != std::string::npos)
    return trace::REDUCE_SCATTER;
  if (lower.find("alltoall") != std::string::npos || lower.find("all_to_all") != std::string::npos)
    return trace::ALL_TO_ALL;
  if (lower.find("broadcast") != std::string::npos)
    return trace::BROADCAST;
  if (lower.find("reduce") != std::string::npos)
    return trace::REDUCE;
  return trace::OP_UNSPECIFIED;  // send / recv (see p2p_of) and unknown: kept as kernels
}

// "send" / "recv" from the `Collective name` arg.
std::optional<tracer::NcclOp> p2p_of(const std::string& collective) {
  const std::string lower = lowercase(collective);
  if (lower == "send" || lower == "nccl:send")
    return tracer::NcclOp::send;
  if (lower == "recv" || lower == "nccl:recv")
    return tracer::NcclOp::recv;
  return std::nullopt;
}

std::pair<trace::DataType, double> dtype_of(const std::string& d) {
  if (d == "Float")
    return {trace::FLOAT32, 4};
  if (d == "Half")
    return {trace::FLOAT16, 2};
  if (d == "BFloat16")
    return {trace::BFLOAT16, 2};
  if (d == "Double")
    return {trace::FLOAT64, 8};
  if (d == "Long")
    return {trace::INT64, 8};
  if (d == "Int")
    return {trace::INT32, 4};
  if (d == "Byte" || d == "Char")
    return {trace::INT8, 1};
  return {trace::FLOAT32, 4};
}

std::vector<std::uint32_t> ranks_of(const std::string& list) {
  std::vector<std::uint32_t> out;
  std::string digits;
  for (char c : list + ",") {
    if (std::isdigit(static_cast<unsigned char>(c)))
      digits += c;
    else if (!digits.empty()) {
      out.push_back(static_cast<std::uint32_t>(std::stoul(digits)));
      digits.clear();
    }
  }
  return out;
}

// Correlation ids are spaced by this factor so that the event records and waits inferred below
// fit between two real calls (they are ordered by correlation, as launches are).
constexpr std::uint32_t kSpacing = 4;

// The element count NCCL takes for the op, from PyTorch's message sizes (process_trace.hpp counts
// AllGather, ReduceScatter and AllToAll per rank, as NCCL does).
std::uint64_t nccl_count(trace::CollectiveOp op, const GpuEvent& g, std::size_t group_size) {
  switch (op) {
  case trace::ALL_GATHER: return static_cast<std::uint64_t>(g.in_nelems);
  case trace::REDUCE_SCATTER: return static_cast<std::uint64_t>(g.out_nelems);
  case trace::ALL_TO_ALL: return static_cast<std::uint64_t>(g.in_nelems) / std::max<std::size_t>(1, group_size);
  default: return static_cast<std::uint64_t>(g.in_nelems);
  }
}

tracer::NcclOp nccl_op(trace::CollectiveOp op) {
  switch (op) {
  case trace::ALL_GATHER: return tracer::NcclOp::all_gather;
  case trace::REDUCE_SCATTER: return tracer::NcclOp::reduce_scatter;
  case trace::BROADCAST: return tracer::NcclOp::broadcast;
  case trace::REDUCE: return tracer::NcclOp::reduce;
  case trace::ALL_TO_ALL: return tracer::NcclOp::all_to_all;
  default: return tracer::NcclOp::all_reduce;
  }
}

// One file's step as the records the CUPTI tracer would have made (workloads/tracer/), so that one
// conversion turns both into a trace.
class StepRecords {
public:
  StepRecords(const std::string& path, const FileEvents& f, const Step& step, int rank,
              std::map<std::string, std::vector<std::uint32_t>>& groups)
      : path_(path), f_(f), rank_(rank), groups_(groups) {
    number_correlations();
    log_.launcher_rank = rank;
    log_.captures.push_back({static_cast<std::uint64_t>(step.start_ns), static_cast<std::uint64_t>(step.end_ns)});
    for (const RuntimeCall& c : f.calls)
      log_.api.push_back({corr(c.correlation), static_cast<std::uint32_t>(c.thread), static_cast<std::uint64_t>(c.start_ns),
                          static_cast<std::uint64_t>(c.end_ns)});
    std::map<std::string, std::uint32_t> names;
    for (const GpuEvent& g : f.gpu) {
      const auto [it, fresh] = names.emplace(g.name, static_cast<std::uint32_t>(log_.names.size()));
      if (fresh)
        log_.names.push_back(g.name);
      const auto kind = g.category == "kernel" ? tracer::GpuActivityKind::kernel
                        : g.category == "gpu_memset" ? tracer::GpuActivityKind::memset : tracer::GpuActivityKind::memcpy;
      log_.gpu.push_back({kind, it->second, static_cast<std::uint32_t>(g.stream), corr(g.correlation),
                          static_cast<std::uint64_t>(g.start_ns), static_cast<std::uint64_t>(g.start_ns + g.dur_ns)});
      if (g.category == "kernel" && lowercase(g.name).rfind("nccl", 0) == 0)
        add_nccl_call(g);
    }
    // Stream waits are exact when Kineto says which record they waited on; older Kineto does not.
    const bool exact = std::any_of(f.syncs.begin(), f.syncs.end(), [](const GpuEvent& s) { return s.wait_on_record >= 0; });
    add_traced_syncs(exact);
    if (!exact)
      infer_process_group_waits();
  }

  tracer::ActivityLog& log() { return log_; }
  std::uint64_t collectives = 0;

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

  // The NCCL call behind a kernel, from the args PyTorch's ProcessGroupNCCL recorded.
  void add_nccl_call(const GpuEvent& g) {
    const trace::CollectiveOp op = op_of(g.collective, g.name);
    const auto p2p = p2p_of(g.collective);
    if (op == trace::OP_UNSPECIFIED && !p2p)
      return;  // unknown: stays a kernel with its measured time
    auto ranks = ranks_of(g.group_ranks);
    if (ranks.empty())
      ranks = {static_cast<std::uint32_t>(rank_)};
    const std::string slot = "pg" + (g.group_name.empty() ? std::string("0") : g.group_name);
    const auto [known, fresh] = groups_.emplace(slot, ranks);
    if (!fresh && known->second != ranks)
      throw UserError(path_, 0, "process group " + g.group_name + " lists different ranks in two events",
                      "export the trace again; every event of a group should name the same ranks");
    const auto [comm, first] = comm_of_slot_.emplace(slot, comm_of_slot_.size() + 1);
    if (first) {
      const auto me = std::find(ranks.begin(), ranks.end(), static_cast<std::uint32_t>(rank_));
      log_.comms.push_back({comm->second, slot, static_cast<std::uint32_t>(me - ranks.begin()), static_cast<std::uint32_t>(ranks.size())});
    }
    const auto [dtype, size] = dtype_of(g.dtype);
    tracer::NcclCall c;
    c.op = p2p ? *p2p : nccl_op(op);
    c.launch = static_cast<std::uint64_t>(g.correlation);
    c.comm = comm->second;
    c.count = p2p ? static_cast<std::uint64_t>(g.in_nelems) : nccl_count(op, g, ranks.size());
    c.dtype = static_cast<std::uint8_t>(dtype);
    c.dtype_bytes = static_cast<std::uint8_t>(size);
    if (p2p) {
      const auto peer = std::find(ranks.begin(), ranks.end(), static_cast<std::uint32_t>(std::max<std::int64_t>(0, g.p2p_global)));
      if (g.p2p_global >= 0 && peer != ranks.end())
        c.peer = static_cast<std::uint32_t>(peer - ranks.begin());
      else if (g.peer_rank >= 0)
        c.peer = static_cast<std::uint32_t>(g.peer_rank);
      else
        throw UserError(path_, 0, "a " + g.collective + " kernel ('" + g.name.substr(0, 60) + "') does not say its peer",
                        "profile with PyTorch 2.4 or later, which records `Src Rank` / `Dst Rank`");
    }
    log_.nccl.push_back(c);
    log_.external.push_back({corr(g.correlation), c.launch});
    ++collectives;
  }

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
  }

  const std::string& path_;
  const FileEvents& f_;
  int rank_;
  std::map<std::string, std::vector<std::uint32_t>>& groups_;
  std::map<std::string, std::uint64_t> comm_of_slot_;
  std::unordered_map<std::int64_t, std::uint32_t> dense_;
  tracer::ActivityLog log_;
};

// The step to read: `step` (ProfilerStep#step), or the last when step < 0.
const Step& choose_step(const std::string& path, const FileEvents& f, int step) {
  if (f.steps.empty())
    throw UserError(path, 0, "the trace has no ProfilerStep#N annotation, so one iteration cannot be told apart",
                    "profile with torch.profiler.schedule and call prof.step() every iteration");
  if (f.gpu.empty())
    throw UserError(path, 0, "the trace has no GPU event (kernel, memcpy, memset)",
                    "profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]");
  if (step < 0)
    return f.steps.back();
  for (const Step& s : f.steps)
    if (s.name == "ProfilerStep#" + std::to_string(step))
      return s;
  throw UserError(path, 0, "the trace has no ProfilerStep#" + std::to_string(step),
                  "pick one of the steps it has (the first is " + f.steps.front().name + ")");
}

} // namespace

KinetoKernels kineto_kernels(const std::string& file, int step) {
  double bytes = 0;
  const FileEvents f = parse(file, bytes);
  const Step& chosen = choose_step(file, f, step);
  // The step's GPU work is what was launched inside it.
  std::unordered_map<std::int64_t, std::int64_t> launched_at;
  for (const RuntimeCall& c : f.calls)
    launched_at.emplace(c.correlation, c.start_ns);
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
    const std::string lower = lowercase(g.name);
    k.nccl = !g.collective.empty() || lower.rfind("nccl", 0) == 0;
    if (k.nccl) {
      k.op = op_of(g.collective, g.name);
      // As trace.proto counts a collective's bytes: AllGather its output, the others their input.
      const std::int64_t elements = k.op == trace::ALL_GATHER ? g.out_nelems : g.in_nelems;
      k.bytes = static_cast<double>(elements) * dtype_of(g.dtype).second;
    }
    out.kernels.push_back(std::move(k));
  }
  std::stable_sort(out.kernels.begin(), out.kernels.end(),
                   [](const MeasuredKernel& a, const MeasuredKernel& b) { return a.start_ns < b.start_ns; });
  if (out.kernels.empty())
    throw UserError(file, 0, "no GPU kernel was launched inside " + chosen.name, "pick another step with --step");
  return out;
}

KinetoImport read_kineto(const std::vector<std::string>& files, int step) {
  KinetoImport result;
  trace::Trace& t = result.trace;
  t.set_name("kineto");
  std::map<std::string, std::vector<std::uint32_t>> groups;  // slot -> ranks
  std::vector<int> file_rank;
  std::uint64_t measured_ns = 0;
  for (std::size_t fi = 0; fi < files.size(); ++fi) {
    const std::string& path = files[fi];
    FileEvents f = parse(path, result.bytes_parsed);
    const Step* chosen = &choose_step(path, f, step);
    result.step = chosen->name;
    const int rank = f.rank >= 0 ? f.rank : static_cast<int>(fi);
    file_rank.push_back(rank);
    StepRecords records(path, f, *chosen, rank, groups);
    tracer::ProcessTraceStats stats;
    trace::Trace one = tracer::process_trace(records.log(), &stats);
    if (one.templates(0).tasks_size() == 0 || stats.kernels + stats.nccl_calls == 0)
      throw UserError(path, 0, "no GPU kernel was launched inside " + chosen->name, "pick another step with --step");
    one.mutable_templates(0)->set_name("rank" + std::to_string(rank));
    *t.add_templates() = std::move(*one.mutable_templates(0));
    measured_ns = std::max(measured_ns, one.measured_iteration_ns());
    result.kernels += stats.kernels;
    result.collectives += stats.nccl_calls;
  }
  // Ranks: every file's own, and those the process groups name (running the first file's program).
  std::uint32_t world = 0;
  for (int r : file_rank)
    world = std::max(world, static_cast<std::uint32_t>(r) + 1);
  for (const auto& [slot, ranks] : groups)
    for (std::uint32_t r : ranks)
      world = std::max(world, r + 1);
  for (std::uint32_t r = 0; r < world; ++r) {
    const auto it = std::find(file_rank.begin(), file_rank.end(), static_cast<int>(r));
    trace::RankRange& range = *t.add_ranks();
    range.set_first(r);
    range.set_count(1);
    range.set_template_name(t.templates(it == file_rank.end() ? 0 : static_cast<int>(it - file_rank.begin())).name());
  }
  for (const auto& [slot, ranks] : groups) {
    trace::Communicator& c = *t.add_communicators();
    c.set_name(slot);
    c.set_slot(slot);
    for (std::uint32_t r : ranks)
      c.add_ranks(r);
  }
  t.set_measured_iteration_ns(measured_ns);
  for (int r : file_rank)
    result.traced_ranks.push_back(static_cast<std::uint32_t>(r));
  return result;
}

} // namespace echo::workloads
