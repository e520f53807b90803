#pragma once
// Finds one cycle in a task graph (Boost.Graph depth-first search), for error messages.
#include <cstdint>
#include <utility>
#include <vector>

namespace echo::workloads {

// Edges (from, to) over vertices 0..vertex_count-1. Returns the vertices of one cycle in order
// (v0 -> v1 -> ... -> v0), or an empty vector when the graph is acyclic.
std::vector<std::uint32_t> find_cycle(std::uint32_t vertex_count,
                                      const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges);

} // namespace echo::workloads
