#include "collectives/tree.hpp"

#include "collectives/pipeline_unit.hpp"
#include "collectives/ring.hpp"

#include <algorithm>

namespace echo::collectives {

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
  const double serialize = static_cast<double>(p.call.bytes) / p.costs.algorithm_Bps;
  const double unit = pipeline_unit_s(p);
  const double intra = p.costs.hop(p.shape.intra), inter = p.costs.hop(platforms::LinkKind::network);
  auto add = [&](std::uint32_t from, std::uint32_t to, double latency, const std::vector<StepDep>& deps, bool reduce) {
    const std::uint32_t step = s.add_step(from, to, p.call.bytes, serialize, latency, deps, reduce);
    s.set_unit(step, unit);
    return step;
  };

  // What streams into node k's head: its chain, then its children in the tree.
  std::vector<std::vector<StepDep>> into_head(nodes);
  for (std::uint32_t k = 0; k < nodes; ++k) {
    const auto& chain = chains[k];
    std::vector<StepDep> deps;
    for (std::size_t j = chain.size() - 1; j >= 1; --j)
      deps = {{add(chain[j], chain[j - 1], intra, deps, true), DepKind::stream}};
    into_head[k] = deps;
  }
  for (std::uint32_t k = nodes; k-- > 1;) {
    const std::uint32_t parent = (k - 1) / 2;
    into_head[parent].push_back({add(chains[k].front(), chains[parent].front(), inter, into_head[k], true), DepKind::stream});
  }
  // Down from the root: a head sends on once the reduced data streams in.
  std::vector<std::vector<StepDep>> ready(nodes);
  ready[0] = into_head[0];
  for (std::uint32_t k = 1; k < nodes; ++k) {
    const std::uint32_t parent = (k - 1) / 2;
    ready[k] = {{add(chains[parent].front(), chains[k].front(), inter, ready[parent], false), DepKind::stream}};
  }
  for (std::uint32_t k = 0; k < nodes; ++k) {
    std::vector<StepDep> deps = ready[k];
    for (std::size_t j = 1; j < chains[k].size(); ++j)
      deps = {{add(chains[k][j - 1], chains[k][j], intra, deps, false), DepKind::stream}};
  }
  s.finalize();
  return s;
}

std::optional<double> TreeAlgorithm::closed_form_s(const PlannedCall& p) const {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  if (n < 2)
    return p.costs.base_s;
  const auto chains = members_by_node(p);
  const double unit = pipeline_unit_s(p);
  const double intra = unit + p.costs.hop(p.shape.intra);
  const double inter = unit + p.costs.hop(platforms::LinkKind::network);
  // Longest way up (a chain, then the tree to the root) plus longest way down; both are the same
  // set of paths walked in opposite directions.
  double deepest = 0.0;
  for (std::uint32_t k = 0; k < chains.size(); ++k)
    deepest = std::max(deepest, static_cast<double>(chains[k].size() - 1) * intra + heap_depth(k) * inter);
  return p.costs.base_s + static_cast<double>(p.call.bytes) / p.costs.algorithm_Bps - unit + 2 * deepest;
}

} // namespace echo::collectives
