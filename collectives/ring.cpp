#include "collectives/ring.hpp"

#include "collectives/pipeline_unit.hpp"

#include <algorithm>
#include <numeric>

namespace echo::collectives {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

bool is_chain(Op op) { return op == Op::broadcast || op == Op::reduce; }

std::uint32_t ring_steps(Op op, std::uint32_t n) { return op == Op::all_reduce ? 2 * (n - 1) : n - 1; }

// What every step of a (non-chain) ring carries: `rounds` rounds, the first `reducing` reduce,
// each a slice of the data at the call's ring bandwidth.
struct RingRounds {
  std::uint32_t rounds, reducing;
  std::uint64_t slice;
  double serialize_s;
};

// The links also wait while each channel copies its last chunks into the output (StepCosts::
// ring_tail_copy_Bps): over the call, the member's share of the data at that rate per channel.
// Spread over the rounds, so that a call sharing its links stretches the wait with its steps.
RingRounds ring_rounds(const PlannedCall& p, std::uint32_t n) {
  const std::uint32_t rounds = ring_steps(p.call.op, n);
  const std::uint64_t slice = ceil_div(p.call.bytes, n);
  const double tail_s = p.costs.ring_tail_copy_Bps > 0.0
                            ? static_cast<double>(slice) / std::max(1u, p.costs.channels) / p.costs.ring_tail_copy_Bps
                            : 0.0;
  return {rounds, p.call.op == Op::all_gather ? 0 : n - 1, slice,
          static_cast<double>(p.call.bytes) / rounds / p.costs.algorithm_Bps + tail_s / rounds};
}

// Members in chain order for Broadcast (from the root) and Reduce (into the root).
std::vector<std::uint32_t> chain_order(const PlannedCall& p) {
  const auto ring = ring_order(p);
  const auto n = static_cast<std::uint32_t>(ring.size());
  const auto root_at = static_cast<std::uint32_t>(std::find(ring.begin(), ring.end(), p.call.root) - ring.begin());
  std::vector<std::uint32_t> order(n);
  const std::uint32_t first = p.call.op == Op::broadcast ? root_at : (root_at + 1) % n;
  for (std::uint32_t i = 0; i < n; ++i)
    order[i] = ring[(first + i) % n];
  return order;
}

} // namespace

std::vector<std::uint32_t> ring_order(const PlannedCall& p) {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  // Nodes in the order their first member appears, members in index order inside a node.
  std::vector<std::uint32_t> first_seen(n);
  std::vector<std::uint32_t> node_rank;
  for (std::uint32_t m = 0; m < n; ++m) {
    auto it = std::find(node_rank.begin(), node_rank.end(), p.node_of_member[m]);
    first_seen[m] = static_cast<std::uint32_t>(it - node_rank.begin());
    if (it == node_rank.end())
      node_rank.push_back(p.node_of_member[m]);
  }
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return first_seen[a] < first_seen[b]; });
  return order;
}

std::vector<std::vector<std::uint32_t>> members_by_node(const PlannedCall& p) {
  std::vector<std::vector<std::uint32_t>> nodes;
  for (std::uint32_t m : ring_order(p)) {
    if (nodes.empty() || p.node_of_member[nodes.back().front()] != p.node_of_member[m])
      nodes.emplace_back();
    nodes.back().push_back(m);
  }
  return nodes;
}

std::uint32_t heap_depth(std::uint32_t k) {
  std::uint32_t d = 0;
  for (; k > 0; k = (k - 1) / 2)
    ++d;
  return d;
}

std::string RingAlgorithm::unsupported(const CollectiveCall& call, const CommShape&) const {
  switch (call.op) {
  case Op::all_reduce:
  case Op::all_gather:
  case Op::reduce_scatter:
  case Op::broadcast:
  case Op::reduce: return {};
  default: return "a ring runs AllReduce, AllGather, ReduceScatter, Broadcast and Reduce";
  }
}

Schedule RingAlgorithm::build(const PlannedCall& p) const {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  Schedule s(n);
  s.set_base_latency(p.costs.base_s);
  if (n < 2) {
    s.finalize();
    return s;
  }
  if (is_chain(p.call.op)) {
    // One step per hop, each streaming on what the previous hop delivers.
    const auto order = chain_order(p);
    const double serialize = static_cast<double>(p.call.bytes) / p.costs.algorithm_Bps;
    const double unit = pipeline_unit_s(p);
    for (std::uint32_t h = 0; h + 1 < n; ++h) {
      const double latency = p.costs.hop(p.hop_kind(order[h], order[h + 1]));
      const std::uint32_t step =
          h == 0 ? s.add_step(order[h], order[h + 1], p.call.bytes, serialize, latency, {}, p.call.op == Op::reduce)
                 : s.add_step(order[h], order[h + 1], p.call.bytes, serialize, latency, {{h - 1, DepKind::stream}},
                              p.call.op == Op::reduce);
      s.set_unit(step, unit);
    }
  } else {
    // Round k: every member sends one slice to its successor, forwarding (or reducing) what it
    // received from its predecessor in round k-1.
    const auto order = ring_order(p);
    const RingRounds r = ring_rounds(p, n);
    s.reserve(std::size_t{r.rounds} * n, 2 * std::size_t{r.rounds - 1} * n);
    for (std::uint32_t k = 0; k < r.rounds; ++k)
      for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t from = order[i], to = order[(i + 1) % n];
        const double latency = p.costs.hop(p.hop_kind(from, to));
        if (k == 0)
          s.add_step(from, to, r.slice, r.serialize_s, latency, {}, k < r.reducing);
        else
          s.add_step(from, to, r.slice, r.serialize_s, latency,
                     {{(k - 1) * n + (i + n - 1) % n, DepKind::data}, {(k - 1) * n + i, DepKind::order}}, k < r.reducing);
      }
  }
  s.finalize();
  return s;
}

std::optional<Schedule> RingAlgorithm::build_for_member(const PlannedCall& p, std::uint32_t self) const {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  if (n < 2 || self >= n || is_chain(p.call.op))
    return std::nullopt;
  // build()'s steps rotate into one another only if every member hands on to the member the same
  // offset ahead, over hops of one latency.
  const auto order = ring_order(p);
  const std::uint32_t ahead = (order[1] + n - order[0]) % n;
  const double latency = p.costs.hop(p.hop_kind(order[0], order[1]));
  std::uint32_t at = n;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t from = order[i], to = order[(i + 1) % n];
    if ((to + n - from) % n != ahead || p.costs.hop(p.hop_kind(from, to)) != latency)
      return std::nullopt;
    if (from == self)
      at = i;
  }
  // build()'s round k for `self` alone; its data dependency (the predecessor's round k-1) reads as
  // `self`'s own round k-1, as project_onto_member maps it.
  const RingRounds r = ring_rounds(p, n);
  const std::uint32_t to = order[(at + 1) % n];
  Schedule s(n);
  s.set_base_latency(p.costs.base_s);
  s.reserve(r.rounds, 2 * std::size_t{r.rounds - 1});
  for (std::uint32_t k = 0; k < r.rounds; ++k) {
    if (k == 0)
      s.add_step(self, to, r.slice, r.serialize_s, latency, {}, k < r.reducing);
    else
      s.add_step(self, to, r.slice, r.serialize_s, latency, {{k - 1, DepKind::data}, {k - 1, DepKind::order}}, k < r.reducing);
  }
  s.mark_symmetric();
  s.finalize();
  return s;
}

std::uint64_t RingAlgorithm::step_count(const PlannedCall& p) const {
  const std::uint64_t n = p.call.gpus.size();
  if (n < 2)
    return 0;
  return is_chain(p.call.op) ? n - 1 : n * ring_steps(p.call.op, static_cast<std::uint32_t>(n));
}

std::optional<double> RingAlgorithm::closed_form_s(const PlannedCall& p) const {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  if (n < 2)
    return p.costs.base_s;
  if (is_chain(p.call.op)) {
    // Streaming through n-1 hops: the whole message once, plus a unit and a latency per hop.
    const auto order = chain_order(p);
    const double unit = pipeline_unit_s(p);
    double latency = 0.0;
    for (std::uint32_t h = 0; h + 1 < n; ++h)
      latency += p.costs.hop(p.hop_kind(order[h], order[h + 1]));
    return p.costs.base_s + static_cast<double>(p.call.bytes) / p.costs.algorithm_Bps + (n - 2) * unit + latency;
  }
  // The slowest member's last data arrives after `rounds` hops along consecutive ring edges:
  // the window of `rounds` edges with the most latency.
  const auto order = ring_order(p);
  const std::uint32_t rounds = ring_steps(p.call.op, n);
  std::vector<double> edge(n);
  for (std::uint32_t i = 0; i < n; ++i)
    edge[i] = p.costs.hop(p.hop_kind(order[i], order[(i + 1) % n]));
  const double lap = std::accumulate(edge.begin(), edge.end(), 0.0);
  const std::uint32_t laps = rounds / n, rest = rounds % n;
  double window = 0.0, best = 0.0;
  for (std::uint32_t i = 0; i < rest; ++i)
    window += edge[i];
  best = window;
  for (std::uint32_t start = 1; start < n && rest > 0; ++start) {
    window += edge[(start + rest - 1) % n] - edge[start - 1];
    best = std::max(best, window);
  }
  const RingRounds r = ring_rounds(p, n);
  return p.costs.base_s + rounds * r.serialize_s + laps * lap + best;
}

} // namespace echo::collectives
