#include "collectives/hierarchical.hpp"

#include "collectives/ring.hpp"

#include <algorithm>

namespace echo::collectives {

namespace {

constexpr std::uint32_t kNone = ~0u;

// Where each member stands between phases: its last step sent and last step received.
struct Progress {
  std::vector<std::uint32_t> sent, received;
};

// A ring of `rounds` rounds over `group` (member indices), each member sending `bytes` per round
// to the next, forwarding what it received the round before.
void ring_phase(Schedule& s, const PlannedCall& p, const std::vector<std::uint32_t>& group, std::uint32_t rounds,
                std::uint64_t bytes, bool reduce, Progress& at) {
  const auto g = static_cast<std::uint32_t>(group.size());
  if (g < 2)
    return;
  for (std::uint32_t r = 0; r < rounds; ++r) {
    std::vector<std::uint32_t> added(g);
    for (std::uint32_t i = 0; i < g; ++i) {
      const std::uint32_t from = group[i], to = group[(i + 1) % g];
      const platforms::LinkKind kind = p.hop_kind(from, to);
      std::vector<StepDep> deps;
      if (at.received[from] != kNone)
        deps.push_back({at.received[from], DepKind::data});
      if (at.sent[from] != kNone)
        deps.push_back({at.sent[from], DepKind::order});
      added[i] = s.add_step(from, to, bytes, static_cast<double>(bytes) / p.costs.link_Bps[static_cast<int>(kind)],
                            p.costs.hop(kind), deps, reduce);
    }
    for (std::uint32_t i = 0; i < g; ++i) {
      at.sent[group[i]] = added[i];
      at.received[group[(i + 1) % g]] = added[i];
    }
  }
}

} // namespace

std::string HierarchicalAllReduce::unsupported(const CollectiveCall& call, const CommShape& shape) const {
  if (call.op != Op::all_reduce)
    return "Hierarchical runs AllReduce only";
  if (shape.ranks != shape.nodes * shape.ppn)
    return "Hierarchical needs the same number of ranks on every node";
  return {};
}

Schedule HierarchicalAllReduce::build(const PlannedCall& p) const {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  Schedule s(n);
  s.set_base_latency(p.costs.base_s);
  const auto nodes = members_by_node(p);
  const auto ppn = static_cast<std::uint32_t>(nodes.front().size());
  const auto count = static_cast<std::uint32_t>(nodes.size());
  Progress at{std::vector<std::uint32_t>(n, kNone), std::vector<std::uint32_t>(n, kNone)};
  const std::uint64_t slice = (p.call.bytes + ppn - 1) / ppn;
  for (const auto& node : nodes)
    ring_phase(s, p, node, ppn - 1, slice, true, at);
  for (std::uint32_t l = 0; l < ppn; ++l) {
    std::vector<std::uint32_t> rail;
    for (const auto& node : nodes)
      rail.push_back(node[l]);
    ring_phase(s, p, rail, 2 * (count - 1), (slice + count - 1) / count, true, at);
  }
  for (const auto& node : nodes)
    ring_phase(s, p, node, ppn - 1, slice, false, at);
  s.finalize();
  return s;
}

} // namespace echo::collectives
