#include "workloads/rank_program.hpp"

#include "base/user_error.hpp"
#include "workloads/dependency_cycle.hpp"

#include <map>
#include <unordered_map>

namespace echo::workloads {

namespace {

std::string describe(const trace::Task& t) {
  return "task " + std::to_string(t.id()) + (t.name().empty() ? "" : " ('" + t.name() + "')");
}

// ProgramTask::seq: collectives counted per slot, sends and recvs per (slot, peer), in template order.
void number_calls_in_issue_order(RankProgram& p) {
  std::unordered_map<std::uint32_t, std::uint32_t> calls;
  std::unordered_map<std::uint64_t, std::uint32_t> sends, recvs;
  for (ProgramTask& task : p.tasks) {
    const std::uint64_t pair = (std::uint64_t{task.slot} << 32) | task.peer_or_root;
    switch (task.kind) {
    case TaskKind::collective: task.seq = calls[task.slot]++; break;
    case TaskKind::send: task.seq = sends[pair]++; break;
    case TaskKind::recv: task.seq = recvs[pair]++; break;
    default: break;
    }
  }
}

} // namespace

RankProgram compile_program(const trace::RankTemplate& tmpl, const std::string& file,
                            const SlotIndexer& slot_of, const TaskLine& line_of) {
  const std::string where = "template '" + tmpl.name() + "': ";
  auto fail = [&](int task_index, const std::string& problem, const std::string& fix) -> UserError {
    return UserError(file, task_index >= 0 ? line_of(task_index) : 0, where + problem, fix);
  };

  RankProgram p;
  p.name = tmpl.name();
  p.streams.assign(tmpl.streams().begin(), tmpl.streams().end());
  if (p.streams.empty() && tmpl.tasks_size() > 0)
    throw fail(-1, "the template lists tasks but no streams", "add `streams: \"compute\"` to the template");
  p.stream_order.resize(p.streams.size());

  std::unordered_map<std::uint64_t, std::uint32_t> index_of_id;
  p.tasks.reserve(tmpl.tasks_size());
  for (int i = 0; i < tmpl.tasks_size(); ++i) {
    const trace::Task& t = tmpl.tasks(i);
    if (!index_of_id.emplace(t.id(), i).second)
      throw fail(i, "two tasks have the id " + std::to_string(t.id()), "give every task of a template its own id");
    if (t.stream() >= p.streams.size())
      throw fail(i, describe(t) + " runs on stream " + std::to_string(t.stream()) + " but the template has " +
                        std::to_string(p.streams.size()) + " stream(s)",
                 "use a stream index below " + std::to_string(p.streams.size()) + " or add the stream");

    ProgramTask task;
    task.name = t.name();
    task.category = t.category();
    task.stream = t.stream();
    task.position = static_cast<std::uint32_t>(p.stream_order[t.stream()].size());
    p.stream_order[t.stream()].push_back(static_cast<std::uint32_t>(i));
    switch (t.kind_case()) {
    case trace::Task::kCompute:
      task.kind = TaskKind::compute;
      task.duration_ns = t.compute().duration_ns();
      task.fills_gpu = t.compute().fills_gpu();
      if (t.compute().has_metrics()) {
        task.metrics = static_cast<std::uint32_t>(p.metrics.size());
        p.metrics.push_back(t.compute().metrics());
      }
      break;
    case trace::Task::kCollective: {
      const auto& c = t.collective();
      task.kind = TaskKind::collective;
      if (c.op() == trace::OP_UNSPECIFIED)
        throw fail(i, describe(t) + " is a collective without an op", "set `op: ALL_REDUCE` (or another CollectiveOp)");
      if (c.comm().empty())
        throw fail(i, describe(t) + " names no communicator", "set `comm: \"dp\"` (a slot of the trace's communicators)");
      task.op = c.op();
      task.dtype = c.dtype();
      task.slot = slot_of(c.comm());
      task.bytes = c.bytes();
      task.peer_or_root = c.root();
      task.duration_ns = c.measured_duration_ns();
      task.reserved_sms = c.reserved_sms();
      if (task.category == trace::CATEGORY_UNSPECIFIED)
        task.category = trace::COMMUNICATION;
      break;
    }
    case trace::Task::kSend:
    case trace::Task::kRecv: {
      const bool send = t.kind_case() == trace::Task::kSend;
      const auto& x = send ? t.send() : t.recv();
      task.kind = send ? TaskKind::send : TaskKind::recv;
      if (x.comm().empty())
        throw fail(i, describe(t) + " names no communicator", "set `comm: \"pp\"` (or `world` for global ranks)");
      task.slot = slot_of(x.comm());
      task.peer_or_root = x.peer();
      task.bytes = x.bytes();
      task.dtype = x.dtype();
      task.eager = send && x.eager();
      if (task.category == trace::CATEGORY_UNSPECIFIED)
        task.category = trace::COMMUNICATION;
      break;
    }
    case trace::Task::KIND_NOT_SET:
      throw fail(i, describe(t) + " has no kind", "give it one of `compute`, `collective`, `send`, `recv`");
    }
    p.tasks.push_back(std::move(task));
  }
  number_calls_in_issue_order(p);

  // Dependencies: they must exist and form no cycle together with the in-stream order.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  for (const auto& order : p.stream_order)
    for (std::size_t k = 1; k < order.size(); ++k)
      edges.emplace_back(order[k - 1], order[k]);
  std::vector<std::vector<std::uint32_t>> deps(p.tasks.size());
  for (int i = 0; i < tmpl.tasks_size(); ++i)
    for (std::uint64_t dep_id : tmpl.tasks(i).deps()) {
      auto it = index_of_id.find(dep_id);
      if (it == index_of_id.end())
        throw fail(i, describe(tmpl.tasks(i)) + " depends on task " + std::to_string(dep_id) + ", which does not exist",
                   "remove the dependency or add a task with id " + std::to_string(dep_id));
      deps[i].push_back(it->second);
      edges.emplace_back(it->second, static_cast<std::uint32_t>(i));
    }
  if (auto cycle = find_cycle(static_cast<std::uint32_t>(p.tasks.size()), edges); !cycle.empty()) {
    std::string path;
    for (std::uint32_t v : cycle)
      path += describe(tmpl.tasks(static_cast<int>(v))) + " -> ";
    path += describe(tmpl.tasks(static_cast<int>(cycle.front())));
    throw fail(static_cast<int>(cycle.front()), "dependency cycle: " + path + " (tasks of one stream also run in the order listed)",
               "remove one of these dependencies, or reorder the stream's tasks");
  }

  // Keep, per task, only the strongest wait per other stream: the latest position it needs.
  for (std::size_t i = 0; i < p.tasks.size(); ++i) {
    std::map<std::uint32_t, std::uint32_t> latest;
    for (std::uint32_t d : deps[i])
      if (p.tasks[d].stream != p.tasks[i].stream) {
        p.tasks[d].observed = true;
        auto [it, fresh] = latest.emplace(p.tasks[d].stream, p.tasks[d].position);
        if (!fresh)
          it->second = std::max(it->second, p.tasks[d].position);
      }
    p.tasks[i].waits_begin = static_cast<std::uint32_t>(p.waits.size());
    for (auto [stream, position] : latest)
      p.waits.push_back({stream, position});
    p.tasks[i].waits_end = static_cast<std::uint32_t>(p.waits.size());
  }
  return p;
}

} // namespace echo::workloads
