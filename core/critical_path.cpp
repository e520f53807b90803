#include "core/critical_path.hpp"

#include "core/rank_runtime.hpp"
#include "core/trace_names.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace echo::core {

using workloads::TaskKind;

namespace {

constexpr double kTie = 1e-12;  // intervals that touch within this are back to back

// Members of one call share a key: collectives (communicator, seq), a send and its recv
// (source, destination, seq). Compute tasks have none.
using CallKey = std::tuple<int, std::uint32_t, std::uint32_t, std::uint64_t>;

std::optional<CallKey> call_key(const Interval& iv, const workloads::ProgramTask& t) {
  switch (t.kind) {
  case TaskKind::collective: return CallKey{0, iv.comm, 0, iv.seq};
  case TaskKind::send: return CallKey{1, iv.rank, iv.comm, iv.seq};
  case TaskKind::recv: return CallKey{1, iv.comm, iv.rank, iv.seq};
  default: return std::nullopt;
  }
}

// What a stretch of the path is: a call's op, or for a compute task what its time counts as
// (a traced host thread's time, work carried in from the previous iteration, a communication
// kernel that is no call, or GPU compute).
std::string segment_kind(const workloads::ProgramTask& t) {
  if (t.kind != TaskKind::compute)
    return std::string(op_name(t));
  switch (time_kind(t.category)) {
  case TimeKind::host: return "host";
  case TimeKind::carry_in: return "carried in";
  case TimeKind::comm: return "communication kernel";
  case TimeKind::gpu: break;
  }
  return "compute";
}

struct Index {
  std::vector<std::vector<std::int64_t>> by_task;  // per rank: task -> interval, -1 if none
  std::map<CallKey, std::vector<std::size_t>> calls;
};

} // namespace

std::vector<CriticalSegment> critical_path(const SimulationResult& result, const workloads::Workload& w) {
  const auto& iv = result.intervals;
  if (iv.empty())
    return {};
  Index ix;
  ix.by_task.resize(w.rank_count());
  for (std::uint32_t r = 0; r < w.rank_count(); ++r)
    ix.by_task[r].assign(w.program(r).tasks.size(), -1);
  for (std::size_t i = 0; i < iv.size(); ++i) {
    ix.by_task[iv[i].rank][iv[i].task] = static_cast<std::int64_t>(i);
    if (const auto key = call_key(iv[i], w.program(iv[i].rank).tasks[iv[i].task]))
      ix.calls[*key].push_back(i);
  }
  auto call_of = [&](std::size_t i) -> const std::vector<std::size_t>* {
    const auto key = call_key(iv[i], w.program(iv[i].rank).tasks[iv[i].task]);
    return key ? &ix.calls.at(*key) : nullptr;
  };
  // The predecessor of interval i that ended last before i started: the previous task on its
  // stream, or a task of another stream it waits for.
  auto binding = [&](std::size_t i) -> std::int64_t {
    const workloads::RankProgram& prog = w.program(iv[i].rank);
    const workloads::ProgramTask& t = prog.tasks[iv[i].task];
    std::int64_t best = -1;
    auto consider = [&](std::uint32_t task) {
      const std::int64_t j = ix.by_task[iv[i].rank][task];
      if (j >= 0 && iv[j].end_s <= iv[i].start_s + kTie && (best < 0 || iv[j].end_s > iv[best].end_s))
        best = j;
    };
    if (t.position > 0)
      consider(prog.stream_order[t.stream][t.position - 1]);
    for (std::uint32_t k = t.waits_begin; k < t.waits_end; ++k)
      consider(prog.stream_order[prog.waits[k].stream][prog.waits[k].position]);
    return best;
  };

  // Start from the interval that ends last (the lowest rank on ties).
  std::size_t cur = 0;
  for (std::size_t i = 1; i < iv.size(); ++i)
    if (iv[i].end_s > iv[cur].end_s + kTie || (std::abs(iv[i].end_s - iv[cur].end_s) <= kTie && iv[i].rank < iv[cur].rank))
      cur = i;
  std::vector<CriticalSegment> path;
  double end_s = iv[cur].end_s;
  for (;;) {
    std::size_t from = cur;  // the interval whose start bound `cur`
    double start_s = iv[cur].start_s;
    if (const auto* members = call_of(cur)) {
      // The member that arrived last held the call up. A send and its recv both start when the
      // transfer does; then the one whose own predecessor ended last is the one that came late.
      auto arrival = [&](std::size_t m) {
        const std::int64_t p = binding(m);
        return p >= 0 ? iv[static_cast<std::size_t>(p)].end_s : 0.0;
      };
      for (std::size_t m : *members)
        if (iv[m].start_s > iv[from].start_s + kTie ||
            (std::abs(iv[m].start_s - iv[from].start_s) <= kTie && arrival(m) > arrival(from) + kTie))
          from = m;
      start_s = iv[from].start_s;
    }
    const workloads::ProgramTask& t = w.program(iv[cur].rank).tasks[iv[cur].task];
    path.push_back({t.name, segment_kind(t), iv[cur].rank, start_s, end_s - start_s});
    const std::int64_t prev = binding(from);
    if (prev < 0)
      break;
    cur = static_cast<std::size_t>(prev);
    end_s = iv[cur].end_s;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::vector<CriticalContribution> critical_path_top(const std::vector<CriticalSegment>& path, std::size_t limit) {
  std::map<std::pair<std::string, std::string>, double> by_task;
  for (const CriticalSegment& c : path)
    by_task[{c.name, c.kind}] += c.duration_s;
  std::vector<CriticalContribution> top;
  for (const auto& [key, s] : by_task)
    top.push_back({key.first, key.second, s});
  std::stable_sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.duration_s > b.duration_s; });
  if (top.size() > limit)
    top.resize(limit);
  return top;
}

} // namespace echo::core
