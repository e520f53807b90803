#pragma once
// A collective call on GPUs 0..n-1, for tests of algorithms and the collective model.
#include "collectives/algorithm.hpp"

#include <numeric>

namespace echo::test {

inline collectives::CollectiveCall call_of(collectives::Op op, std::uint64_t bytes, std::uint32_t n, std::uint32_t root = 0) {
  collectives::CollectiveCall c;
  c.op = op;
  c.bytes = bytes;
  c.root = root;
  c.gpus.resize(n);
  std::iota(c.gpus.begin(), c.gpus.end(), 0u);
  return c;
}

} // namespace echo::test
