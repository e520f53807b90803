#include "workloads/kineto_reader.hpp"

#include "workloads/kernel_category.hpp"

#include "base/user_error.hpp"

#include <simdjson.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace echo::workloads {

namespace {

namespace sj = simdjson;

constexpr std::int64_t kWaitWindowNs = 20000;

struct GpuEvent {
  std::string name;
  std::int64_t stream = 0, start_ns = 0, dur_ns = 0, correlation = -1;
  bool memcpy = false;
  // NCCL args
  std::string collective, dtype, group_name, group_ranks;
  std::int64_t in_nelems = 0, out_nelems = 0;
  std::int64_t launch_ns = 0;
  std::int64_t launch_thread = -1;  // -1: no launch call seen
};

struct Step {
  std::string name;
  std::int64_t start_ns = 0, end_ns = 0;
};

struct FileEvents {
  std::vector<GpuEvent> gpu;
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> launch_of;  // correlation -> (call start, thread)
  std::vector<Step> steps;
  int rank = -1;
};

std::string read_file(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files too
  if (f == nullptr)
    throw UserError(path, 0, "cannot read the Kineto trace", "check the path");
  std::string out;
  char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;)
    out.append(buf, static_cast<std::size_t>(n));
  int err = 0;
  const char* message = gzerror(f, &err);
  const std::string why = err < 0 && message ? message : "";
  gzclose(f);
  if (!why.empty())
    throw UserError(path, 0, "the compressed Kineto trace is damaged: " + why, "export the trace again");
  return out;
}

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
  }
}

FileEvents parse(const std::string& path, double& bytes) {
  const std::string raw = read_file(path);
  bytes += static_cast<double>(raw.size());
  sj::padded_string json(raw);
  sj::ondemand::parser parser;
  FileEvents out;
  try {
    sj::ondemand::document doc = parser.iterate(json);
    bool found = false;
    for (auto field : doc.get_object()) {
      const std::string_view key = field.unescaped_key();
      if (key == "distributedInfo") {
        for (auto f : field.value().get_object())
          if (std::string_view(f.unescaped_key()) == "rank")
            out.rank = static_cast<int>(number(f.value()));
        continue;
      }
      if (key != "traceEvents")
        continue;
      found = true;
      for (auto e : field.value().get_array()) {
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
        if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
          g.name = std::string(name);
          if (g.stream == 0)
            g.stream = tid;
          g.start_ns = ns(ts);
          g.dur_ns = ns(dur);
          g.memcpy = cat != "kernel";
          out.gpu.push_back(std::move(g));
        } else if (cat == "cuda_runtime" && g.correlation >= 0) {
          out.launch_of[g.correlation] = {ns(ts), tid};
        } else if ((cat == "user_annotation" || cat == "cpu_op") && name.rfind("ProfilerStep#", 0) == 0) {
          out.steps.push_back({std::string(name), ns(ts), ns(ts + dur)});
        }
      }
    }
    if (!found)
      throw UserError(path, 0, "no traceEvents: not a Kineto / Chrome trace", "give the JSON the PyTorch profiler exported");
  } catch (const sj::simdjson_error& e) {
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
  return trace::OP_UNSPECIFIED;  // send / recv and unknown: kept as kernels
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

trace::Category category_of(const GpuEvent& g) { return g.memcpy ? trace::MEMCPY : kernel_category(g.name); }

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

} // namespace

KinetoImport read_kineto(const std::vector<std::string>& files, int step) {
  KinetoImport result;
  trace::Trace& t = result.trace;
  t.set_name("kineto");
  std::map<std::string, std::vector<std::uint32_t>> groups;  // slot -> ranks
  std::vector<int> file_rank;
  std::int64_t measured_ns = 0;
  for (std::size_t fi = 0; fi < files.size(); ++fi) {
    const std::string& path = files[fi];
    FileEvents f = parse(path, result.bytes_parsed);
    if (f.steps.empty())
      throw UserError(path, 0, "the trace has no ProfilerStep#N annotation, so one iteration cannot be told apart",
                      "profile with torch.profiler.schedule and call prof.step() every iteration");
    const Step* chosen = &f.steps.back();
    if (step >= 0) {
      chosen = nullptr;
      for (const Step& s : f.steps)
        if (s.name == "ProfilerStep#" + std::to_string(step))
          chosen = &s;
      if (chosen == nullptr)
        throw UserError(path, 0, "the trace has no ProfilerStep#" + std::to_string(step),
                        "pick one of the steps it has (the first is " + f.steps.front().name + ")");
    }
    result.step = chosen->name;
    // The step's GPU work: what was launched inside its CPU interval.
    std::vector<GpuEvent> gpu;
    for (GpuEvent& g : f.gpu) {
      const auto it = f.launch_of.find(g.correlation);
      g.launch_ns = it != f.launch_of.end() ? it->second.first : g.start_ns;
      g.launch_thread = it != f.launch_of.end() ? it->second.second : -1;
      if (g.launch_ns >= chosen->start_ns && g.launch_ns < chosen->end_ns)
        gpu.push_back(g);
    }
    if (gpu.empty())
      throw UserError(path, 0, "no GPU kernel was launched inside " + chosen->name, "pick another step with --step");
    std::stable_sort(gpu.begin(), gpu.end(), [](const GpuEvent& a, const GpuEvent& b) { return a.start_ns < b.start_ns; });
    std::int64_t last = 0;
    for (const GpuEvent& g : gpu)
      last = std::max(last, g.start_ns + g.dur_ns);
    measured_ns = std::max(measured_ns, last - chosen->start_ns);  // from the step's start, as simulated

    trace::RankTemplate& tmpl = *t.add_templates();
    tmpl.set_name("rank" + std::to_string(f.rank >= 0 ? f.rank : static_cast<int>(fi)));
    file_rank.push_back(f.rank >= 0 ? f.rank : static_cast<int>(fi));
    std::map<std::int64_t, std::uint32_t> stream_index;
    std::map<std::int64_t, std::vector<std::size_t>> by_stream;  // indices into gpu, start order
    for (std::size_t i = 0; i < gpu.size(); ++i) {
      if (!stream_index.count(gpu[i].stream)) {
        stream_index[gpu[i].stream] = static_cast<std::uint32_t>(tmpl.streams_size());
        tmpl.add_streams("stream " + std::to_string(gpu[i].stream));
      }
      by_stream[gpu[i].stream].push_back(i);
    }
    // The host: per launching thread, the time from one launch call to the next. A kernel cannot
    // start before its launch, so a GPU that waited for the CPU waits here too.
    std::map<std::int64_t, std::vector<std::size_t>> launches;  // thread -> kernels in launch order
    for (std::size_t i = 0; i < gpu.size(); ++i)
      if (gpu[i].launch_thread >= 0)
        launches[gpu[i].launch_thread].push_back(i);
    std::vector<std::uint64_t> host_task_of(gpu.size(), 0);
    std::uint64_t next_id = gpu.size() + 1;
    for (auto& [thread, list] : launches) {
      std::stable_sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) { return gpu[a].launch_ns < gpu[b].launch_ns; });
      const auto host_stream = static_cast<std::uint32_t>(tmpl.streams_size());
      tmpl.add_streams("host thread " + std::to_string(thread));
      std::int64_t previous = chosen->start_ns;
      for (std::size_t i : list) {
        trace::Task& h = *tmpl.add_tasks();
        h.set_id(next_id);
        h.set_stream(host_stream);
        h.set_name("host until launch of " + gpu[i].name.substr(0, 60));
        h.set_category(trace::HOST);
        h.mutable_compute()->set_duration_ns(static_cast<std::uint64_t>(std::max<std::int64_t>(0, gpu[i].launch_ns - previous)));
        previous = std::max(previous, gpu[i].launch_ns);
        host_task_of[i] = next_id++;
      }
    }
    // NCCL kernels that are collectives (send / recv and unknown ones stay kernels), once each.
    std::vector<trace::CollectiveOp> op(gpu.size(), trace::OP_UNSPECIFIED);
    for (std::size_t i = 0; i < gpu.size(); ++i)
      if (gpu[i].name.rfind("nccl", 0) == 0)
        op[i] = op_of(gpu[i].collective, gpu[i].name);
    auto is_collective = [&](std::size_t i) { return op[i] != trace::OP_UNSPECIFIED; };
    for (std::size_t i = 0; i < gpu.size(); ++i) {
      const GpuEvent& g = gpu[i];
      trace::Task& task = *tmpl.add_tasks();
      task.set_id(i + 1);
      task.set_stream(stream_index[g.stream]);
      task.set_name(g.name);
      if (host_task_of[i] != 0)
        task.add_deps(host_task_of[i]);
      // Cross-stream order (see the header).
      for (const auto& [other, list] : by_stream) {
        if (other == g.stream)
          continue;
        // A stream runs in launch order: the last one launched before `g` is found by bisection.
        const auto at = std::lower_bound(list.begin(), list.end(), g.launch_ns,
                                         [&](std::size_t j, std::int64_t launch) { return gpu[j].launch_ns < launch; });
        if (at == list.begin())
          continue;
        const std::size_t before_index = *(at - 1);
        const GpuEvent* before = &gpu[before_index];
        if (before->start_ns + before->dur_ns > g.start_ns)
          continue;
        const bool waited = is_collective(i) ||
                            (is_collective(before_index) && g.start_ns - (before->start_ns + before->dur_ns) <= kWaitWindowNs);
        if (waited)
          task.add_deps(before_index + 1);
      }
      if (is_collective(i)) {
        const auto [dtype, size] = dtype_of(g.dtype);
        const std::int64_t elements = op[i] == trace::ALL_GATHER ? g.out_nelems : g.in_nelems;
        const std::string slot = "pg" + (g.group_name.empty() ? std::string("0") : g.group_name);
        task.set_category(trace::COMMUNICATION);
        auto& c = *task.mutable_collective();
        c.set_op(op[i]);
        c.set_comm(slot);
        c.set_bytes(static_cast<std::uint64_t>(static_cast<double>(elements) * size));
        c.set_dtype(dtype);
        c.set_measured_duration_ns(static_cast<std::uint64_t>(g.dur_ns));
        auto ranks = ranks_of(g.group_ranks);
        if (ranks.empty())
          ranks = {static_cast<std::uint32_t>(file_rank.back())};
        groups.emplace(slot, ranks);
        ++result.collectives;
      } else {
        task.set_category(category_of(g));
        task.mutable_compute()->set_duration_ns(static_cast<std::uint64_t>(g.dur_ns));
        ++result.kernels;
      }
    }
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
  t.set_measured_iteration_ns(static_cast<std::uint64_t>(measured_ns));
  for (int r : file_rank)
    result.traced_ranks.push_back(static_cast<std::uint32_t>(r));
  return result;
}

} // namespace echo::workloads
