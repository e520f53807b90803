#include "collectives/ring.hpp"

#include <algorithm>

namespace echo::collectives {

namespace {

using platforms::Route;
using platforms::RouteOracle;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// Ring of `rounds` steps; in each, every member sends one slice to its successor, forwarding (or
// reducing) what it received from its predecessor in the round before.
Schedule ring_rounds(const CollectiveCall& call, const RouteOracle& routes, std::uint32_t rounds,
                     std::uint32_t reducing_rounds) {
  const auto n = static_cast<std::uint32_t>(call.gpus.size());
  Schedule s(n);
  const std::uint64_t slice = ceil_div(call.bytes, n);
  std::vector<Route> to_next(n);
  for (std::uint32_t m = 0; m < n; ++m)
    to_next[m] = routes.route(call.gpus[m], call.gpus[(m + 1) % n]);
  for (std::uint32_t k = 0; k < rounds; ++k)
    for (std::uint32_t m = 0; m < n; ++m) {
      const bool reduce = k < reducing_rounds;
      if (k == 0) {
        s.add_step(m, (m + 1) % n, slice, to_next[m], {}, reduce);
      } else {
        const std::uint32_t prev = (m + n - 1) % n;
        s.add_step(m, (m + 1) % n, slice, to_next[m],
                   {{(k - 1) * n + prev, true}, {(k - 1) * n + m, false}}, reduce);
      }
    }
  return s;
}

// Chain through `order` (member indices), the message cut into chunks that flow down the chain
// one behind the other: chunk c leaves hop h once it has arrived from hop h-1 and chunk c-1 has
// left hop h.
Schedule pipelined_chain(const CollectiveCall& call, const RouteOracle& routes,
                         const std::vector<std::uint32_t>& order, bool reduce) {
  const auto n = static_cast<std::uint32_t>(order.size());
  Schedule s(n);
  const std::uint64_t chunks =
      std::clamp<std::uint64_t>(ceil_div(call.bytes, RingAlgorithm::kChunkBytes), 1, RingAlgorithm::kMaxChunks);
  const std::uint32_t hops = n - 1;
  std::vector<Route> hop_route(hops);
  for (std::uint32_t h = 0; h < hops; ++h)
    hop_route[h] = routes.route(call.gpus[order[h]], call.gpus[order[h + 1]]);
  for (std::uint64_t c = 0; c < chunks; ++c) {
    // Spread the bytes so that chunk sizes differ by at most one byte.
    const std::uint64_t bytes = call.bytes / chunks + (c < call.bytes % chunks ? 1 : 0);
    for (std::uint32_t h = 0; h < hops; ++h) {
      const auto index = static_cast<std::uint32_t>(c * hops + h);
      if (c == 0 && h == 0)
        s.add_step(order[h], order[h + 1], bytes, hop_route[h], {}, reduce);
      else if (c == 0)
        s.add_step(order[h], order[h + 1], bytes, hop_route[h], {{index - 1, true}}, reduce);
      else if (h == 0)
        s.add_step(order[h], order[h + 1], bytes, hop_route[h], {{index - hops, false}}, reduce);
      else
        s.add_step(order[h], order[h + 1], bytes, hop_route[h], {{index - 1, true}, {index - hops, false}}, reduce);
    }
  }
  return s;
}

} // namespace

bool RingAlgorithm::supports(const CollectiveCall& call) const {
  switch (call.op) {
  case Op::all_reduce:
  case Op::all_gather:
  case Op::reduce_scatter:
  case Op::broadcast:
  case Op::reduce:
    return !call.gpus.empty();
  default:
    return false;
  }
}

Schedule RingAlgorithm::build(const CollectiveCall& call, const RouteOracle& routes) const {
  const auto n = static_cast<std::uint32_t>(call.gpus.size());
  Schedule s(n);
  if (n > 1) {
    switch (call.op) {
    case Op::all_reduce: s = ring_rounds(call, routes, 2 * (n - 1), n - 1); break;
    case Op::all_gather: s = ring_rounds(call, routes, n - 1, 0); break;
    case Op::reduce_scatter: s = ring_rounds(call, routes, n - 1, n - 1); break;
    case Op::broadcast:
    case Op::reduce: {
      // Broadcast flows away from the root; Reduce flows into it.
      std::vector<std::uint32_t> order(n);
      const std::uint32_t first = call.op == Op::broadcast ? call.root : (call.root + 1) % n;
      for (std::uint32_t i = 0; i < n; ++i)
        order[i] = (first + i) % n;
      s = pipelined_chain(call, routes, order, call.op == Op::reduce);
      break;
    }
    default: break;
    }
  }
  s.finalize();
  return s;
}

} // namespace echo::collectives
