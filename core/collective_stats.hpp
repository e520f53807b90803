#pragma once
// Completed collectives grouped by (communicator, op, bytes): calls, summed time, the plan.
#include "core/simulation_result.hpp"

#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace echo::core {

class CollectiveStats {
public:
  // One completed call: from its first member's arrival to its last member's finish.
  void record(std::uint32_t comm, const std::string& communicator, int op, const std::string& op_name, std::uint64_t bytes,
              const std::string& choice, double seconds);
  // Every entry of communicator `from`, again for `to` (named `name`): a communicator whose calls
  // mirror another's (rank folding).
  void copy_to(std::uint32_t from, std::uint32_t to, const std::string& name);
  // Longest summed time first.
  std::vector<CollectiveStat> sorted() const;

private:
  struct Key {
    std::uint32_t comm;
    int op;
    std::uint64_t bytes;
    auto operator<=>(const Key&) const = default;
  };
  std::map<Key, CollectiveStat> stats_;
};

} // namespace echo::core
