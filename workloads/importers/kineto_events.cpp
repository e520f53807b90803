#include "workloads/importers/kineto_events.hpp"

#include "workloads/importers/json_array_stream.hpp"

#include "base/user_error.hpp"

#include <simdjson.h>
#include <zlib.h>

#include <charconv>
#include <cmath>
#include <string_view>

namespace echo::workloads::kineto {

namespace {

namespace sj = simdjson;

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

// A JSON number as an id or count; -1 where it is none or lies beyond a 64-bit integer (casting
// such a double is undefined: fuzz finding, a correlation of 10^70).
std::int64_t whole(sj::ondemand::value v) {
  const double d = number(v);
  return std::fabs(d) < 9.2e18 ? static_cast<std::int64_t>(d) : -1;
}

// PyTorch writes some integers as strings ("Dst Rank": "3", "tid": "25738"); -1 when not a number.
std::int64_t integer(sj::ondemand::value v) {
  std::string_view s;
  if (v.get_string().get(s) == sj::SUCCESS) {
    std::int64_t out = -1;
    const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), out);
    return error == std::errc() ? out : -1;
  }
  return whole(v);
}

// The schema's spelling of a category, as the current one spells it.
std::string_view canonical_category(std::string_view cat) {
  if (cat == "Kernel" || cat == "mtia_ccp_events")
    return "kernel";
  if (cat == "Memcpy")
    return "gpu_memcpy";
  if (cat == "Memset")
    return "gpu_memset";
  if (cat == "Runtime" || cat == "mtia_runtime")
    return "cuda_runtime";
  if (cat == "Operator")
    return "cpu_op";
  return cat;
}

CallKind call_kind(std::string_view name) {
  auto is = [&](std::string_view what) { return name == std::string("cuda") + std::string(what) || name == std::string("hip") + std::string(what); };
  if (is("DeviceSynchronize") || name == "cuCtxSynchronize")
    return CallKind::device_sync;
  if (is("StreamSynchronize") || name == "cuStreamSynchronize")
    return CallKind::stream_sync;
  if (is("EventSynchronize") || name == "cuEventSynchronize")
    return CallKind::event_sync;
  if (is("Memcpy") || is("Memcpy2D") || name == "cuMemcpyDtoH_v2" || name == "cuMemcpyHtoD_v2")
    return CallKind::memcpy_sync;
  return CallKind::other;
}

// `Input Dims`: [[8, 1024], [], ...] -> the element count of each input (0 for a scalar or list).
std::vector<std::int64_t> element_counts(sj::ondemand::value v) {
  std::vector<std::int64_t> out;
  sj::ondemand::array inputs;
  if (v.get_array().get(inputs) != sj::SUCCESS)
    return out;
  for (auto input : inputs) {
    std::int64_t count = 1;
    bool any = false;
    sj::ondemand::array dims;
    if (input.get_array().get(dims) == sj::SUCCESS)
      for (auto d : dims) {
        std::int64_t x = 0;
        if (d.get_int64().get(x) == sj::SUCCESS) {
          count *= x;
          any = true;
        }
      }
    out.push_back(any ? count : 0);
  }
  return out;
}

std::vector<std::string> strings(sj::ondemand::value v) {
  std::vector<std::string> out;
  sj::ondemand::array list;
  if (v.get_array().get(list) != sj::SUCCESS)
    return out;
  for (auto s : list) {
    std::string_view x;
    out.emplace_back(s.get_string().get(x) == sj::SUCCESS ? std::string(x) : std::string());
  }
  return out;
}

struct Args {
  GpuEvent gpu;
  std::int64_t record_function = -1, external = -1;
  std::vector<std::int64_t> elements;
  std::vector<std::string> types;
};

// The args of an event that matter here: the launch correlation, the stream, NCCL's call, the
// waits of cuda_sync events, and the inputs of communication ops.
// `want_inputs`: read `Input Dims` / `Input type` too (only communication ops need them; the
// profiler writes an op's name before its args).
void read_args(sj::ondemand::object& args, Args& out, bool want_inputs) {
  GpuEvent& g = out.gpu;
  for (auto a : args) {
    const std::string_view k = a.unescaped_key();
    if (k == "correlation")
      g.correlation = whole(a.value());
    else if (k == "stream")
      g.stream = whole(a.value());
    else if (k == "Collective name")
      g.collective = std::string(text(a.value()));
    else if (k == "In msg nelems")
      g.in_nelems = integer(a.value());
    else if (k == "Out msg nelems")
      g.out_nelems = integer(a.value());
    else if (k == "Group size")
      g.group_size = integer(a.value());
    else if (k == "dtype")
      g.dtype = std::string(text(a.value()));
    else if (k == "Process Group Name")
      g.group_name = std::string(text(a.value()));
    else if (k == "Process Group Ranks")
      g.group_ranks = std::string(text(a.value()));
    else if (k == "Dst Rank" || k == "Src Rank")  // send / recv: the peer's global rank
      g.p2p_global = integer(a.value());
    else if (k == "Rank")
      g.peer_rank = integer(a.value());
    else if (k == "wait_on_stream")
      g.wait_on_stream = whole(a.value());
    else if (k == "wait_on_cuda_event_record_corr_id")
      g.wait_on_record = whole(a.value());
    else if (k == "wait_on_cuda_event_id")
      g.wait_on_event = whole(a.value());
    else if (k == "Record function id")
      out.record_function = integer(a.value());
    else if (k == "External id")
      out.external = integer(a.value());
    else if (k == "Input Dims" && want_inputs)
      out.elements = element_counts(a.value());
    else if (k == "Input type" && want_inputs)
      out.types = strings(a.value());
  }
}

bool describes_communication(std::string_view name) {
  return name.rfind("nccl:", 0) == 0 || name.rfind("c10d::", 0) == 0 || name == "record_param_comms";
}

void widen_span(FileEvents& out, std::int64_t start, std::int64_t end) {
  out.first_ns = out.first_ns < 0 ? start : std::min(out.first_ns, start);
  out.last_ns = std::max(out.last_ns, end);
}

// The events of one batch (a JSON array of trace events), into `out`.
void read_events(sj::ondemand::array events, FileEvents& out, bool keep_ops) {
  for (auto e : events) {
    std::string_view ph, raw_cat, name;
    double ts = 0, dur = 0;
    std::int64_t tid = 0;
    Args args;
    for (auto f : e.get_object()) {
      const std::string_view k = f.unescaped_key();
      if (k == "ph")
        ph = text(f.value());
      else if (k == "cat")
        raw_cat = text(f.value());
      else if (k == "name")
        name = text(f.value());
      else if (k == "ts")
        ts = number(f.value());
      else if (k == "dur")
        dur = number(f.value());
      else if (k == "tid")
        tid = integer(f.value());
      else if (k == "args") {
        sj::ondemand::object object;
        if (f.value().get_object().get(object) == sj::SUCCESS)
          read_args(object, args, name.empty() || describes_communication(name));
      }
    }
    if (ph != "X")
      continue;
    const std::string_view cat = canonical_category(raw_cat);
    GpuEvent& g = args.gpu;
    if (cat != "Trace")
      widen_span(out, ns(ts), ns(ts + dur));
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "cuda_sync") {
      g.name = std::string(name);
      if (g.stream == 0 && cat != "cuda_sync")
        g.stream = tid;
      g.start_ns = ns(ts);
      g.dur_ns = ns(dur);
      g.category = std::string(cat);
      (cat == "cuda_sync" ? out.syncs : out.gpu).push_back(std::move(g));
    } else if ((cat == "cuda_runtime" || cat == "cuda_driver") && g.correlation >= 0) {
      out.calls.push_back({g.correlation, tid, ns(ts), ns(ts + dur), call_kind(name)});
    } else if (cat == "user_annotation" || cat == "cpu_op") {
      if (keep_ops && (args.record_function >= 0 || args.external >= 0))
        out.ops_by_record[args.record_function >= 0 ? args.record_function : args.external] = {tid, ns(ts), ns(ts + dur)};
      if (name.rfind("ProfilerStep#", 0) == 0)
        out.steps.push_back({std::string(name), ns(ts), ns(ts + dur), tid});
      else if (describes_communication(name))
        out.comm_ranges.push_back({std::string(name), tid, ns(ts), ns(ts + dur),
                                   args.record_function >= 0 ? args.record_function : args.external, std::move(args.elements),
                                   std::move(args.types)});
    }
  }
}

void read_distributed_info(sj::ondemand::value info, FileEvents& out) {
  for (auto f : info.get_object()) {
    const std::string_view k = f.unescaped_key();
    if (k == "rank")
      out.rank = static_cast<int>(integer(f.value()));
    else if (k == "world_size")
      out.world_size = static_cast<int>(integer(f.value()));
    else if (k == "backend")
      out.backend = std::string(text(f.value()));
    else if (k == "pg_config") {
      sj::ondemand::array groups;
      if (f.value().get_array().get(groups) != sj::SUCCESS)
        continue;
      for (auto group : groups) {
        std::string name;
        std::vector<std::uint32_t> ranks;
        for (auto g : group.get_object()) {
          const std::string_view gk = g.unescaped_key();
          if (gk == "pg_name")
            name = std::string(text(g.value()));
          else if (gk == "ranks") {
            sj::ondemand::array list;
            if (g.value().get_array().get(list) == sj::SUCCESS)
              for (auto r : list) {
                std::int64_t x = 0;
                if (r.get_int64().get(x) == sj::SUCCESS && x >= 0)
                  ranks.push_back(static_cast<std::uint32_t>(x));
              }
          }
        }
        if (!name.empty())
          out.group_ranks[name] = std::move(ranks);
      }
    }
  }
}

} // namespace

FileEvents read_file(const std::string& path, double& bytes_parsed, bool keep_ops) {
  TraceFile file(path);
  FileEvents out;
  sj::ondemand::parser parser;
  try {
    const JsonArrayStreamResult r = stream_json_array(
        [&](char* buf, std::size_t n) { return file.read(buf, n); }, "traceEvents", 4u << 20,
        [&](const sj::padded_string& batch) {
          sj::ondemand::document doc = parser.iterate(batch);
          read_events(doc.get_array(), out, keep_ops);
        });
    bytes_parsed += static_cast<double>(r.bytes);
    if (!r.found)
      throw UserError(path, 0,
                      "no traceEvents: not a PyTorch profiler (Kineto) trace" +
                          std::string(r.rest.find("\"nodes\"") != std::string::npos
                                          ? " (its `nodes` look like a PyTorch Execution Trace, which is not read)"
                                          : ""),
                      "give the JSON that torch.profiler exported (prof.export_chrome_trace or tensorboard_trace_handler)");
    // The rest of the object (distributedInfo, deviceProperties, ...) is small.
    const sj::padded_string rest(r.rest);
    sj::ondemand::document doc = parser.iterate(rest);
    for (auto field : doc.get_object())
      if (std::string_view(field.unescaped_key()) == "distributedInfo")
        read_distributed_info(field.value(), out);
  } catch (const sj::simdjson_error& e) {
    throw UserError(path, 0, std::string("malformed JSON: ") + e.what(), "give the JSON the PyTorch profiler exported");
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const UserError*>(&e) != nullptr)
      throw;
    throw UserError(path, 0, std::string("malformed JSON: ") + e.what(), "give the JSON the PyTorch profiler exported");
  }
  return out;
}

} // namespace echo::workloads::kineto
