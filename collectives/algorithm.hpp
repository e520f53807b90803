#pragma once
// Algorithm: turns one collective call (op, bytes, members' GPUs) into a Schedule, using a route
// oracle for the closed-form step costs. To add an algorithm, derive from Algorithm and add an
// instance to the registry the simulation uses; core/ needs no change.
#include "collectives/op.hpp"
#include "collectives/schedule.hpp"
#include "platforms/route.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace echo::collectives {

struct CollectiveCall {
  Op op = Op::all_reduce;
  // Bytes as NCCL counts them: full buffer for AllReduce / Broadcast / Reduce, gathered output for
  // AllGather, input for ReduceScatter, the message for send/recv.
  std::uint64_t bytes = 0;
  std::vector<std::uint32_t> gpus;  // member index -> GPU index (rank order of the platform)
  std::uint32_t root = 0;           // member index (Broadcast, Reduce); for send/recv: 0 sends to 1
};

class Algorithm {
public:
  virtual ~Algorithm() = default;
  virtual std::string name() const = 0;
  virtual bool supports(const CollectiveCall& call) const = 0;
  // The returned schedule is finalized.
  virtual Schedule build(const CollectiveCall& call, const platforms::RouteOracle& routes) const = 0;
};

class AlgorithmRegistry {
public:
  // The algorithms shipped with echo-des: ring (AllReduce, AllGather, ReduceScatter, Broadcast,
  // Reduce as NCCL runs them on a ring), point-to-point send/recv, and pairwise AllToAll.
  static AlgorithmRegistry with_builtins();

  // Later additions take precedence: a researcher's algorithm added after the built-ins is
  // chosen for every call it supports.
  void add(std::unique_ptr<Algorithm> algorithm);
  const Algorithm* find(const std::string& name) const;
  // The most recently added algorithm that supports the call. Throws UserError when none does.
  const Algorithm& choose(const CollectiveCall& call) const;
  std::vector<std::string> names() const;

private:
  std::vector<std::unique_ptr<Algorithm>> algorithms_;
};

} // namespace echo::collectives
