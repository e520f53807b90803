#include "workloads/dependency_cycle.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>

#include <algorithm>

namespace echo::workloads {

namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
using Edge = boost::graph_traits<Graph>::edge_descriptor;

struct FoundCycle {};

// Records tree-edge parents; the first back edge closes a cycle.
class CycleVisitor : public boost::default_dfs_visitor {
public:
  CycleVisitor(std::vector<Vertex>& parent, std::vector<std::uint32_t>& cycle) : parent_(parent), cycle_(cycle) {}
  void tree_edge(Edge e, const Graph& g) { parent_[boost::target(e, g)] = boost::source(e, g); }
  void back_edge(Edge e, const Graph& g) {
    const Vertex from = boost::source(e, g), to = boost::target(e, g);
    for (Vertex v = from; v != to; v = parent_[v])
      cycle_.push_back(static_cast<std::uint32_t>(v));
    cycle_.push_back(static_cast<std::uint32_t>(to));
    std::reverse(cycle_.begin(), cycle_.end());
    throw FoundCycle{};
  }

private:
  std::vector<Vertex>& parent_;
  std::vector<std::uint32_t>& cycle_;
};

} // namespace

std::vector<std::uint32_t> find_cycle(std::uint32_t vertex_count,
                                      const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges) {
  Graph g(edges.begin(), edges.end(), vertex_count);
  std::vector<Vertex> parent(vertex_count);
  std::vector<std::uint32_t> cycle;
  try {
    boost::depth_first_search(g, boost::visitor(CycleVisitor(parent, cycle)));
  } catch (const FoundCycle&) {
    return cycle;
  }
  return {};
}

} // namespace echo::workloads
