#include "collectives/nvls.hpp"

#include "collectives/ring.hpp"

#include <algorithm>

namespace echo::collectives {

namespace {

constexpr std::uint64_t kNvlsChunk = 128 * 1024;

double unit_s(const PlannedCall& p) {
  const std::uint64_t per_channel = (p.call.bytes + p.costs.channels - 1) / std::max(1u, p.costs.channels);
  return static_cast<double>(std::min(kNvlsChunk, std::max<std::uint64_t>(1, per_channel))) * p.costs.channels /
         p.costs.algorithm_Bps;
}

// How many switch hops an op makes inside a node; they share NCCL's one NVLS latency.
std::uint32_t switch_hops(Op op) { return op == Op::all_reduce ? 2 : 1; }

} // namespace

std::string NvlsAlgorithm::unsupported(const CollectiveCall& call, const CommShape& shape) const {
  if (!shape.nvswitch || (shape.arch != Arch::hopper && shape.arch != Arch::blackwell))
    return "NVLS needs Hopper or newer GPUs on an NVSwitch";
  if (tree_)
    return call.op == Op::all_reduce && shape.nodes > 1 ? std::string() : "NVLSTree runs AllReduce across nodes";
  if (shape.nodes > 1)
    return "NVLS runs inside one node";
  return call.op == Op::all_reduce || call.op == Op::all_gather || call.op == Op::reduce_scatter
             ? std::string()
             : "NVLS runs AllReduce, AllGather and ReduceScatter";
}

Schedule NvlsAlgorithm::build(const PlannedCall& p) const {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  Schedule s(n);
  s.set_base_latency(p.costs.base_s);
  const auto nodes = members_by_node(p);
  const double serialize = static_cast<double>(p.call.bytes) / p.costs.algorithm_Bps;
  const double unit = unit_s(p);
  const double hop = p.costs.hop(p.shape.intra) / switch_hops(p.call.op);
  const double inter = p.costs.hop(platforms::LinkKind::network);
  auto add = [&](std::uint32_t from, std::uint32_t to, std::uint64_t bytes, double latency, const std::vector<StepDep>& deps,
                 bool reduce) {
    const std::uint32_t step = s.add_step(from, to, bytes, serialize, latency, deps, reduce);
    s.set_unit(step, unit);
    return step;
  };
  // One switch hop in every node: each member to each other member of its node. `into[m]`
  // collects what streams into member m. Through a GPU's port, of the m - 1 sends of a member
  // of m: the reducing round's loads read each of its m slices once (m / (m - 1) of the sends'
  // bytes), the gathering round's multicast stores write its own slice once (1 / (m - 1)).
  auto switch_round = [&](const std::vector<std::vector<StepDep>>& ready, bool reduce) {
    std::vector<std::vector<StepDep>> into(n);
    for (const auto& members : nodes) {
      const std::uint64_t bytes = p.call.bytes / members.size();
      const auto m = static_cast<float>(members.size());
      const float share = members.size() > 1 ? (reduce ? m : 1.0f) / (m - 1.0f) : 1.0f;
      for (std::uint32_t a : members)
        for (std::uint32_t b : members)
          if (a != b) {
            const std::uint32_t step = add(a, b, bytes, hop, ready[a], reduce);
            s.set_wire_share(step, share);
            into[b].push_back({step, DepKind::stream});
          }
    }
    return into;
  };

  std::vector<std::vector<StepDep>> ready(n);
  const bool reduces = p.call.op != Op::all_gather;
  ready = switch_round(ready, reduces);
  if (p.call.op == Op::all_reduce) {
    if (tree_) {
      // Each rail (local index l) reduces its slice across nodes, up a binary tree, then down.
      const std::size_t rails = std::min_element(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) {
                                  return a.size() < b.size();
                                })->size();
      const std::uint64_t slice = p.call.bytes / std::max<std::size_t>(1, nodes.front().size());
      for (std::size_t l = 0; l < rails; ++l) {
        std::vector<std::vector<StepDep>> up(nodes.size());
        for (std::uint32_t k = 0; k < nodes.size(); ++k)
          up[k] = ready[nodes[k][l]];
        for (auto k = static_cast<std::uint32_t>(nodes.size()); k-- > 1;) {
          const std::uint32_t parent = (k - 1) / 2;
          up[parent].push_back({add(nodes[k][l], nodes[parent][l], slice, inter, up[k], true), DepKind::stream});
        }
        std::vector<std::vector<StepDep>> down(nodes.size());
        down[0] = up[0];
        for (std::uint32_t k = 1; k < nodes.size(); ++k) {
          const std::uint32_t parent = (k - 1) / 2;
          down[k] = {{add(nodes[parent][l], nodes[k][l], slice, inter, down[parent], false), DepKind::stream}};
        }
        for (std::uint32_t k = 0; k < nodes.size(); ++k)
          ready[nodes[k][l]] = down[k];
      }
    }
    switch_round(ready, false);
  }
  s.finalize();
  return s;
}

std::optional<double> NvlsAlgorithm::closed_form_s(const PlannedCall& p) const {
  const auto nodes = members_by_node(p);
  const double unit = unit_s(p);
  const double hop = p.costs.hop(p.shape.intra) / switch_hops(p.call.op);
  const std::uint32_t hops_in_node = switch_hops(p.call.op);
  // A node of one member has no switch hop to make.
  const bool alone = std::all_of(nodes.begin(), nodes.end(), [](const auto& m) { return m.size() < 2; });
  double path = alone ? 0.0 : hops_in_node * (hop + unit);
  if (tree_ && p.call.op == Op::all_reduce) {
    std::uint32_t depth = 0;
    for (std::uint32_t k = 0; k < nodes.size(); ++k)
      depth = std::max(depth, heap_depth(k));
    path += 2.0 * depth * (p.costs.hop(platforms::LinkKind::network) + unit);
  }
  if (path == 0.0)
    return p.costs.base_s;
  return p.costs.base_s + static_cast<double>(p.call.bytes) / p.costs.algorithm_Bps - unit + path;
}

} // namespace echo::collectives
