#include "workloads/replicate.hpp"

#include "base/user_error.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace echo::workloads {

trace::Trace replicate_dp(const trace::Trace& in, std::uint32_t dp, const std::string& source) {
  if (dp == 0)
    throw UserError(source, 0, "replicate.dp must be at least 1", "write e.g. `replicate: {dp: 64}`");
  // Template of every original rank.
  std::map<std::uint32_t, std::string> template_of;
  for (const trace::RankRange& r : in.ranks())
    for (std::uint32_t k = 0; k < std::max(1u, r.count()); ++k)
      template_of[r.first() + k] = r.template_name();

  // The replica: member 0 of every dp communicator, or every rank when there is none.
  std::set<std::uint32_t> replica;
  bool has_dp = false;
  for (const trace::Communicator& c : in.communicators())
    if (c.slot() == "dp" && c.ranks_size() > 0) {
      has_dp = true;
      replica.insert(c.ranks(0));
    }
  if (!has_dp)
    for (const auto& [rank, name] : template_of)
      replica.insert(rank);
  const std::vector<std::uint32_t> coords(replica.begin(), replica.end());
  auto coordinate = [&](std::uint32_t rank) -> std::int64_t {
    auto it = std::lower_bound(coords.begin(), coords.end(), rank);
    return it != coords.end() && *it == rank ? it - coords.begin() : -1;
  };
  const auto width = static_cast<std::uint32_t>(coords.size());
  auto rank_of = [&](std::uint32_t copy, std::int64_t coord) { return copy * width + static_cast<std::uint32_t>(coord); };

  trace::Trace out;
  out.set_name(in.name() + "-dp" + std::to_string(dp));
  *out.mutable_templates() = in.templates();
  out.set_measured_iteration_ns(in.measured_iteration_ns());
  *out.mutable_import_notes() = in.import_notes();
  for (std::uint32_t copy = 0; copy < dp; ++copy)
    for (std::uint32_t i = 0; i < width; ++i) {
      trace::RankRange* r = out.add_ranks();
      r->set_first(rank_of(copy, i));
      r->set_count(1);
      r->set_template_name(template_of.at(coords[i]));
    }
  // Data parallelism: one communicator per coordinate, over its D copies.
  for (std::uint32_t i = 0; i < width; ++i) {
    trace::Communicator* c = out.add_communicators();
    c->set_name("dp." + std::to_string(i));
    c->set_slot("dp");
    for (std::uint32_t copy = 0; copy < dp; ++copy)
      c->add_ranks(rank_of(copy, i));
  }
  // Every other communicator of the replica, once per copy.
  for (const trace::Communicator& c : in.communicators()) {
    if (c.slot() == "dp")
      continue;
    std::vector<std::int64_t> members;
    for (std::uint32_t r : c.ranks()) {
      members.push_back(coordinate(r));
      if (members.back() < 0)
        throw UserError(source, 0,
                        "communicator '" + c.name() + "' holds rank " + std::to_string(r) +
                            ", which is not in the replicated replica (member 0 of its dp communicator)",
                        "replicate a trace of one data-parallel replica: its tp / pp / ep communicators within it");
    }
    for (std::uint32_t copy = 0; copy < dp; ++copy) {
      trace::Communicator* n = out.add_communicators();
      n->set_name(copy == 0 ? c.name() : c.name() + "@" + std::to_string(copy));
      n->set_slot(c.slot());
      for (std::int64_t m : members)
        n->add_ranks(rank_of(copy, m));
    }
  }
  return out;
}

trace::Trace as_dp_replica(const trace::Trace& in, const std::vector<std::uint32_t>& traced_ranks, const std::string& source) {
  const std::set<std::uint32_t> traced(traced_ranks.begin(), traced_ranks.end());
  trace::Trace out;
  out.set_name(in.name());
  out.set_measured_iteration_ns(in.measured_iteration_ns());
  *out.mutable_import_notes() = in.import_notes();
  // Which slots reach beyond the traced ranks, and which traced rank is in which of them.
  std::set<std::string> beyond;
  std::map<std::uint32_t, std::string> dp_of_rank;
  for (const trace::Communicator& c : in.communicators()) {
    // One holding only untraced ranks (laid over them by an importer) is not the replica's.
    if (std::none_of(c.ranks().begin(), c.ranks().end(), [&](std::uint32_t r) { return traced.count(r) > 0; }))
      continue;
    const bool reaches = std::any_of(c.ranks().begin(), c.ranks().end(), [&](std::uint32_t r) { return !traced.count(r); });
    if (!reaches) {
      *out.add_communicators() = c;
      continue;
    }
    beyond.insert(c.slot());
    trace::Communicator& dp = *out.add_communicators();
    dp.set_name("dp:" + c.name());
    dp.set_slot("dp");
    for (std::uint32_t r : c.ranks()) {
      if (!traced.count(r))
        continue;
      dp.add_ranks(r);
      const auto [it, fresh] = dp_of_rank.emplace(r, c.name());
      if (!fresh)
        throw UserError(source, 0,
                        "rank " + std::to_string(r) + " is in two process groups that reach untraced ranks ('" + it->second + "' and '" +
                            c.name() + "'), so which one is data-parallel cannot be told",
                        "trace one rank per (tp, pp) coordinate of one replica whose only cross-replica group is data-parallel, "
                        "or trace every rank");
    }
  }
  if (beyond.empty())
    throw UserError(source, 0, "no process group of the trace reaches beyond the traced ranks: nothing tells the data-parallel group",
                    "trace a job with data parallelism (its gradient AllReduce names the other ranks), or drop `replicate`");
  std::set<std::string> kept_templates;
  for (const trace::RankRange& r : in.ranks())
    for (std::uint32_t k = 0; k < std::max(1u, r.count()); ++k)
      if (traced.count(r.first() + k)) {
        trace::RankRange& range = *out.add_ranks();
        range.set_first(r.first() + k);
        range.set_count(1);
        range.set_template_name(r.template_name());
        kept_templates.insert(r.template_name());
      }
  for (const trace::RankTemplate& t : in.templates()) {
    if (!kept_templates.count(t.name()))
      continue;
    trace::RankTemplate& copy = *out.add_templates();
    copy = t;
    for (trace::Task& task : *copy.mutable_tasks()) {
      if (task.has_collective() && beyond.count(task.collective().comm()))
        task.mutable_collective()->set_comm("dp");
      else if (task.has_send() && beyond.count(task.send().comm()))
        task.mutable_send()->set_comm("dp");
      else if (task.has_recv() && beyond.count(task.recv().comm()))
        task.mutable_recv()->set_comm("dp");
    }
  }
  // The replica's ranks are 0..n-1, in the traced ranks' order (one file of rank 5 is rank 0 of
  // its replica).
  std::map<std::uint32_t, std::uint32_t> renumbered;
  for (std::uint32_t r : traced)
    renumbered.emplace(r, static_cast<std::uint32_t>(renumbered.size()));
  for (trace::RankRange& range : *out.mutable_ranks())
    range.set_first(renumbered.at(range.first()));
  for (trace::Communicator& c : *out.mutable_communicators())
    for (auto& r : *c.mutable_ranks())
      r = renumbered.at(r);
  return out;
}

} // namespace echo::workloads
