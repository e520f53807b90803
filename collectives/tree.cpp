#include "collectives/tree.hpp"

#include "collectives/pipeline_unit.hpp"
#include "collectives/ring.hpp"

#include <algorithm>

namespace echo::collectives {

namespace {

// The in-order binary tree rooted at 0: take the lowest set bit b of k; the parent is k with b
// cleared and the next bit set, or, past the end, k with b cleared.
std::int64_t btree_parent(std::uint32_t n, std::uint32_t k) {
  if (k == 0)
    return -1;
  const std::uint32_t bit = k & (~k + 1);
  std::uint64_t up = (k ^ bit) | (std::uint64_t{bit} << 1);
  if (up >= n)
    up = k ^ bit;
  return static_cast<std::int64_t>(up);
}

std::uint32_t depth(std::uint32_t n, std::uint32_t k, int tree) {
  std::uint32_t d = 0;
  for (std::int64_t p = dtree_parent(n, k, tree); p >= 0; p = dtree_parent(n, static_cast<std::uint32_t>(p), tree))
    ++d;
  return d;
}

} // namespace

std::int64_t dtree_parent(std::uint32_t n, std::uint32_t k, int tree) {
  if (tree == 0)
    return btree_parent(n, k);
  if (n % 2 == 0) {  // mirror
    const std::int64_t p = btree_parent(n, n - 1 - k);
    return p < 0 ? -1 : static_cast<std::int64_t>(n) - 1 - p;
  }
  const std::int64_t p = btree_parent(n, (k + n - 1) % n);  // shift by one
  return p < 0 ? -1 : (p + 1) % n;
}

std::string TreeAlgorithm::unsupported(const CollectiveCall& call, const CommShape&) const {
  return call.op == Op::all_reduce ? std::string() : "NCCL's tree runs AllReduce only";
}

Schedule TreeAlgorithm::build(const PlannedCall& p) const {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  Schedule s(n);
  s.set_base_latency(p.costs.base_s);
  if (n < 2) {
    s.finalize();
    return s;
  }
  const auto chains = members_by_node(p);
  const auto nodes = static_cast<std::uint32_t>(chains.size());
  // Each tree: half the bytes on half the channels, so the same pace and unit as the whole.
  const std::uint64_t half = p.call.bytes / 2;
  const double serialize = static_cast<double>(p.call.bytes) / p.costs.algorithm_Bps;
  const double unit = pipeline_unit_s(p);
  const double intra = p.costs.hop(p.shape.intra), inter = p.costs.hop(platforms::LinkKind::network);
  auto add = [&](std::uint32_t from, std::uint32_t to, double latency, const std::vector<StepDep>& deps, bool reduce) {
    const std::uint32_t step = s.add_step(from, to, half, serialize, latency, deps, reduce);
    s.set_unit(step, unit);
    return step;
  };

  for (int tree = 0; tree < 2; ++tree) {
    // Nodes by depth: children are handled before parents going up, after them going down.
    std::vector<std::uint32_t> by_depth(nodes);
    for (std::uint32_t k = 0; k < nodes; ++k)
      by_depth[k] = k;
    std::vector<std::uint32_t> d(nodes);
    for (std::uint32_t k = 0; k < nodes; ++k)
      d[k] = depth(nodes, k, tree);
    std::stable_sort(by_depth.begin(), by_depth.end(), [&](auto a, auto b) { return d[a] < d[b]; });

    // What streams into node k's head: its chain, then its children in the tree.
    std::vector<std::vector<StepDep>> into_head(nodes);
    for (std::uint32_t k = 0; k < nodes; ++k) {
      const auto& chain = chains[k];
      std::vector<StepDep> deps;
      for (std::size_t j = chain.size() - 1; j >= 1; --j)
        deps = {{add(chain[j], chain[j - 1], intra, deps, true), DepKind::stream}};
      into_head[k] = deps;
    }
    for (auto it = by_depth.rbegin(); it != by_depth.rend(); ++it) {
      const std::int64_t parent = dtree_parent(nodes, *it, tree);
      if (parent >= 0)
        into_head[parent].push_back(
            {add(chains[*it].front(), chains[parent].front(), inter, into_head[*it], true), DepKind::stream});
    }
    // Down from the root: a head sends on once the reduced data streams in.
    std::vector<std::vector<StepDep>> ready(nodes);
    for (std::uint32_t k : by_depth) {
      const std::int64_t parent = dtree_parent(nodes, k, tree);
      ready[k] = parent < 0 ? into_head[k]
                            : std::vector<StepDep>{{add(chains[parent].front(), chains[k].front(), inter, ready[parent], false),
                                                    DepKind::stream}};
    }
    for (std::uint32_t k = 0; k < nodes; ++k) {
      std::vector<StepDep> deps = ready[k];
      for (std::size_t j = 1; j < chains[k].size(); ++j)
        deps = {{add(chains[k][j - 1], chains[k][j], intra, deps, false), DepKind::stream}};
    }
  }
  s.finalize();
  return s;
}

std::optional<double> TreeAlgorithm::closed_form_s(const PlannedCall& p) const {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  if (n < 2)
    return p.costs.base_s;
  const auto chains = members_by_node(p);
  const auto nodes = static_cast<std::uint32_t>(chains.size());
  const double unit = pipeline_unit_s(p);
  const double intra = unit + p.costs.hop(p.shape.intra);
  const double inter = unit + p.costs.hop(platforms::LinkKind::network);
  // In each tree the longest way up (a chain, then the tree to the root) plus the longest way
  // down: the same set of paths walked both ways.
  double deepest = 0.0;
  for (int tree = 0; tree < 2; ++tree)
    for (std::uint32_t k = 0; k < nodes; ++k)
      deepest = std::max(deepest, static_cast<double>(chains[k].size() - 1) * intra + depth(nodes, k, tree) * inter);
  return p.costs.base_s + static_cast<double>(p.call.bytes) / p.costs.algorithm_Bps - unit + 2 * deepest;
}

} // namespace echo::collectives
