#include "report/timeline_writer.hpp"

#include "report/json_text.hpp"

#include "report/timeline_slice.hpp"
#include "core/mirrored_interval.hpp"
#include "core/trace_names.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

namespace echo::report {

namespace {

using workloads::TaskKind;

// Microseconds with exactly three decimals, from integer nanoseconds: no float formatting noise.
long long nanos(double seconds) { return std::llround(seconds * 1e9); }

std::string micros(long long ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", ns / 1000, ns % 1000);
  return buf;
}

std::string quoted(const std::string& s) { return json_text(nlohmann::json(s)); }

void write_interval(std::ostream& out, const core::Interval& iv, const workloads::Workload& w) {
  const workloads::ProgramTask& task = w.program(iv.rank).tasks[iv.task];
  std::string name = task.name;
  std::string args = "\"task\":" + quoted(task.name);
  // A compute kernel that ran longer than alone was stretched by communication beside it.
  const long long stretched_ns = task.kind == TaskKind::compute
                                     ? nanos(iv.end_s) - nanos(iv.start_s) - static_cast<long long>(task.duration_ns)
                                     : 0;
  if (stretched_ns > 0) {
    name += " (stretched)";
    args += ",\"isolated_ns\":" + std::to_string(task.duration_ns) + ",\"stretched_ns\":" + std::to_string(stretched_ns);
  }
  if (task.kind != TaskKind::compute) {
    name = std::string(core::op_name(task)) + " " + std::to_string(task.bytes) + " B";
    args += ",\"op\":\"" + std::string(core::op_name(task)) + "\",\"bytes\":" + std::to_string(task.bytes) +
            ",\"seq\":" + std::to_string(iv.seq);
    if (task.kind == TaskKind::collective)
      args += ",\"communicator\":" + quoted(w.communicators[iv.comm].name);
    else
      args += std::string(",\"") + (task.kind == TaskKind::send ? "to" : "from") + "\":" + std::to_string(iv.comm);
  }
  out << "{\"name\":" << quoted(name) << ",\"cat\":\"" << core::category_name(task.category)
      << "\",\"ph\":\"X\",\"pid\":" << iv.rank << ",\"tid\":" << iv.stream << ",\"ts\":" << micros(nanos(iv.start_s))
      << ",\"dur\":" << micros(nanos(iv.end_s) - nanos(iv.start_s)) << ",\"args\":{" << args << "}}";
}

} // namespace

void write_timeline(std::ostream& out, const core::SimulationResult& result, const workloads::Workload& w) {
  // Beyond kFullTimelineRanks ranks, one data-parallel replica: every rank of a 8,192-GPU job
  // would be gigabytes that no viewer opens, and the replicas look alike.
  std::vector<bool> shown(w.rank_count(), true);
  const bool sliced = w.rank_count() > kFullTimelineRanks;
  if (sliced) {
    shown.assign(w.rank_count(), false);
    for (std::uint32_t r : timeline_slice(w, kFullTimelineRanks))
      shown[r] = true;
  }
  out << "{\"displayTimeUnit\":\"ns\",";
  if (sliced)
    out << "\"otherData\":{\"ranks\":\"one data-parallel replica of the job's " << w.rank_count() << " ranks\"},";
  out << "\"traceEvents\":[\n";
  bool first = true;
  auto next = [&]() -> std::ostream& {
    if (!first)
      out << ",\n";
    first = false;
    return out;
  };
  for (std::uint32_t r = 0; r < w.rank_count(); ++r) {
    if (!shown[r])
      continue;
    next() << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" << r << ",\"args\":{\"name\":\"rank " << r << "\"}}";
    next() << "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" << r << ",\"args\":{\"sort_index\":" << r << "}}";
    const auto& program = w.program(r);
    for (std::uint32_t s = 0; s < program.streams.size(); ++s)
      next() << "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" << r << ",\"tid\":" << s
             << ",\"args\":{\"name\":" << quoted(program.streams[s]) << "}}";
  }
  // A mirrored rank (rank folding) draws its representative's intervals on its own communicators.
  const core::RankIntervals intervals(result, w);
  for (std::uint32_t rank = 0; rank < w.rank_count(); ++rank)
    if (shown[rank])
      intervals.for_rank(rank, [&](const core::Interval& iv) { write_interval(next(), iv, w); });
  out << "\n]}\n";
}

} // namespace echo::report
