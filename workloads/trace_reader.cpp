#include "workloads/trace_reader.hpp"

#include "workloads/kernel_category.hpp"

#include "workloads/replicate.hpp"
#include "workloads/importers/traced_job.hpp"

#include "base/file_text.hpp"
#include "base/user_error.hpp"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/text_format.h>

#include <fcntl.h>
#include <filesystem>
#include <map>
#include <set>
#include <unistd.h>

namespace echo::workloads {

namespace {

using TemplateTaskLine = std::function<int(int template_index, int task_index)>;

bool is_text_format(const std::string& path) {
  for (const char* ext : {".pbtxt", ".txtpb", ".textproto"}) {
    const std::string e = ext;
    if (path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0)
      return true;
  }
  return false;
}

// Remembers the first error protobuf's text parser reports, with its line.
class FirstError : public google::protobuf::io::ErrorCollector {
public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (line_ < 0) {
      line_ = line + 1;
      column_ = column + 1;
      message_ = message;
    }
  }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }

private:
  int line_ = -1;
  int column_ = 0;
  std::string message_;
};

Workload build(const trace::Trace& t, const std::string& path, const TemplateTaskLine& line_of) {
  Workload w;
  w.name = t.name();
  w.source = path;
  w.measured_iteration_ns = t.measured_iteration_ns();
  w.notes.assign(t.import_notes().begin(), t.import_notes().end());
  // Whatever read the trace, its communication libraries' kernels are said (once).
  if (std::optional<std::string> n = communication_kernels_note(t); n && std::find(w.notes.begin(), w.notes.end(), *n) == w.notes.end())
    w.notes.push_back(std::move(*n));

  std::map<std::string, std::uint32_t> slot_index;
  auto slot_of = [&](const std::string& name) {
    auto [it, fresh] = slot_index.emplace(name, static_cast<std::uint32_t>(w.slots.size()));
    if (fresh)
      w.slots.push_back(name);
    return it->second;
  };

  std::map<std::string, std::uint32_t> program_index;
  for (int i = 0; i < t.templates_size(); ++i) {
    const auto& tmpl = t.templates(i);
    if (!program_index.emplace(tmpl.name(), i).second)
      throw UserError(path, 0, "two templates are named '" + tmpl.name() + "'", "give each template its own name");
    w.programs.push_back(compile_program(tmpl, path, slot_of, [&](int task) { return line_of(i, task); }));
  }

  // Rank mapping: ranges must cover 0..N-1 exactly once.
  std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> ranges;  // first -> (count, program)
  for (const auto& r : t.ranks()) {
    auto it = program_index.find(r.template_name());
    if (it == program_index.end())
      throw UserError(path, 0, "ranks " + std::to_string(r.first()) + "... use template '" + r.template_name() +
                                   "', which the trace does not define",
                      "define the template or fix its name in `ranks`");
    ranges[r.first()] = {std::max(1u, r.count()), it->second};
  }
  if (ranges.empty())
    throw UserError(path, 0, "the trace maps no rank to a template",
                    "add `ranks { first: 0 count: N template_name: \"...\" }`");
  for (const auto& [first, range] : ranges) {
    if (first != w.program_of_rank.size())
      throw UserError(path, 0,
                      first < w.program_of_rank.size()
                          ? "rank " + std::to_string(first) + " is mapped to a template twice"
                          : "ranks " + std::to_string(w.program_of_rank.size()) + " to " + std::to_string(first - 1) +
                                " are mapped to no template",
                      "make the `ranks` ranges cover 0..N-1 exactly once");
    w.program_of_rank.insert(w.program_of_rank.end(), range.first, range.second);
  }
  const std::uint32_t n_ranks = w.rank_count();

  // Communicators.
  std::set<std::string> comm_names;
  std::set<std::uint32_t> slots_with_comms;
  for (const auto& c : t.communicators()) {
    if (!comm_names.insert(c.name()).second)
      throw UserError(path, 0, "two communicators are named '" + c.name() + "'", "give each communicator its own name");
    if (c.slot().empty())
      throw UserError(path, 0, "communicator '" + c.name() + "' has no slot", "set `slot: \"dp\"` (the name templates use)");
    CommunicatorDef def{c.name(), slot_of(c.slot()), {c.ranks().begin(), c.ranks().end()}};
    std::set<std::uint32_t> seen;
    for (std::uint32_t r : def.ranks)
      if (r >= n_ranks || !seen.insert(r).second)
        throw UserError(path, 0,
                        "communicator '" + c.name() + "' lists rank " + std::to_string(r) +
                            (r >= n_ranks ? ", but the trace has only " + std::to_string(n_ranks) + " ranks" : " twice"),
                        "list each member rank once, below the number of ranks");
    slots_with_comms.insert(def.slot);
    w.communicators.push_back(std::move(def));
  }
  // `world` needs no declaration: all ranks in rank order.
  if (auto it = slot_index.find("world"); it != slot_index.end() && !slots_with_comms.count(it->second)) {
    CommunicatorDef world{"world", it->second, {}};
    for (std::uint32_t r = 0; r < n_ranks; ++r)
      world.ranks.push_back(r);
    w.communicators.push_back(std::move(world));
  }
  // A rank may be in at most one communicator per slot.
  {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> owner;
    for (const auto& c : w.communicators)
      for (std::uint32_t r : c.ranks)
        if (auto [it, fresh] = owner.emplace(std::make_pair(r, c.slot), c.name); !fresh)
          throw UserError(path, 0,
                          "rank " + std::to_string(r) + " is in two '" + w.slots[c.slot] + "' communicators: '" +
                              it->second + "' and '" + c.name + "'",
                          "a rank belongs to one communicator per slot; use another slot name for the second");
  }
  w.index_communicators();

  // Every rank must be a member of each communicator its program uses, with peers / roots in range.
  for (std::size_t p = 0; p < w.programs.size(); ++p) {
    std::map<std::uint32_t, std::pair<std::uint32_t, const ProgramTask*>> need;  // slot -> (max member index, task)
    std::vector<const ProgramTask*> transfers;
    for (const auto& task : w.programs[p].tasks)
      if (task.kind != TaskKind::compute) {
        auto& entry = need[task.slot];
        if (entry.second == nullptr || task.peer_or_root >= entry.first)
          entry = {task.peer_or_root, &task};
        if (task.kind != TaskKind::collective)
          transfers.push_back(&task);
      }
    for (std::uint32_t r = 0; r < n_ranks; ++r) {
      if (w.program_of_rank[r] != p)
        continue;
      for (const auto& [slot, entry] : need) {
        const std::int32_t c = w.communicator(r, slot);
        const std::string who = "rank " + std::to_string(r) + " (template '" + w.programs[p].name + "')";
        if (c < 0)
          throw UserError(path, 0, who + " uses communicator slot '" + w.slots[slot] + "' but is a member of no '" +
                                       w.slots[slot] + "' communicator",
                          "add the rank to a `communicators` entry with slot: \"" + w.slots[slot] + "\"");
        const auto size = static_cast<std::uint32_t>(w.communicators[c].ranks.size());
        if (entry.first >= size)
          throw UserError(path, 0,
                          who + ": task '" + entry.second->name + "' names member " + std::to_string(entry.first) +
                              " of communicator '" + w.communicators[c].name + "', which has " + std::to_string(size) +
                              " members",
                          "peers and roots are member indices, from 0 to the communicator size - 1");
      }
      for (const ProgramTask* task : transfers)
        if (task->peer_or_root == w.member_index(r, task->slot))
          throw UserError(path, 0,
                          "rank " + std::to_string(r) + ": task '" + task->name + "' sends to or receives from itself",
                          "peers are member indices of the communicator; pick another member");
    }
  }
  return w;
}

} // namespace

Workload build_workload(const trace::Trace& trace, const std::string& path) {
  return build(trace, path, [](int, int) { return 0; });
}

trace::Trace read_trace_message(const std::string& path) {
  const std::string bytes = read_file_text(path, "trace file", "check the path");
  trace::Trace t;
  if (!is_text_format(path)) {
    if (!t.ParseFromString(bytes))
      throw UserError(path, 0, "not a valid binary echo-des trace (protobuf echo.trace.Trace)",
                      "write traces with `echo-des import`, or name a text-format trace *.pbtxt");
    return t;
  }
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(bytes, &t))
    throw UserError(path, errors.line(), "malformed text-format trace: " + errors.message(),
                    "see proto/trace.proto for the fields and examples/*/trace.pbtxt for samples");
  return t;
}

Workload read_trace(const std::string& path, std::uint32_t replicate) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    const trace::Trace job = read_traced_job(path);
    return build_workload(replicate > 0 ? replicate_dp(job, replicate, path) : job, path);
  }
  const std::string bytes =
      read_file_text(path, "trace file", "check the path (relative paths in a job file are relative to the job file)");

  trace::Trace t;
  if (!is_text_format(path)) {
    if (!t.ParseFromString(bytes))
      throw UserError(path, 0, "not a valid binary echo-des trace (protobuf echo.trace.Trace)",
                      "write traces with `echo-des import`, or name a text-format trace *.pbtxt");
    if (t.has_process())  // one process's file from the tracer: a job of one process
      t = merge_process_traces({{path, t}});
    return build_workload(replicate > 0 ? replicate_dp(t, replicate, path) : t, path);
  }

  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  google::protobuf::TextFormat::ParseInfoTree locations;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(&locations);
  if (!parser.ParseFromString(bytes, &t))
    throw UserError(path, errors.line(), "malformed text-format trace: " + errors.message() + " (column " +
                                             std::to_string(errors.column()) + ")",
                    "see proto/trace.proto for the fields and examples/*/trace.pbtxt for samples");

  if (replicate > 0)
    t = replicate_dp(t, replicate, path);  // templates keep their order: source lines still apply
  const auto* desc = trace::Trace::descriptor();
  const auto* templates_field = desc->FindFieldByName("templates");
  const auto* tasks_field = trace::RankTemplate::descriptor()->FindFieldByName("tasks");
  return build(t, path, [&](int tmpl, int task) {
    auto* tmpl_tree = locations.GetTreeForNested(templates_field, tmpl);
    if (tmpl_tree == nullptr)
      return 0;
    auto loc = tmpl_tree->GetLocation(tasks_field, task);
    return loc.line >= 0 ? loc.line + 1 : 0;
  });
}

} // namespace echo::workloads
