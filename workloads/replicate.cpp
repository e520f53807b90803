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

} // namespace echo::workloads
