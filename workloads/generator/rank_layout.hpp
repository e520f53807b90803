#pragma once
// RankLayout: which parallel coordinates a global rank has, and the process groups built from
// them, following Megatron-LM's rank generator: `order` lists the dimensions innermost first
// ("tp-cp-ep-dp-pp": ranks of one TP group are consecutive, then CP, ...). Expert parallelism is
// carved out of data parallelism: the `dp` dimension of the order counts dp / ep positions and `ep`
// the ep positions inside it.
#include "workloads/generator/training_job.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace echo::workloads {

enum class Dim { tp, cp, ep, dp, pp };  // dp: the expert-data-parallel part (dp / ep)

struct Coordinates {
  std::uint32_t tp = 0, cp = 0, ep = 0, dp = 0, pp = 0;
  std::uint32_t data_parallel() const;  // index among the dp replicas: ep + ep_size * dp
  std::uint32_t ep_size = 1;
};

struct ProcessGroup {
  std::string slot;                  // "tp", "cp", "pp", "dp", "ep", "edp", "embd"
  std::vector<std::uint32_t> ranks;  // member order
};

class RankLayout {
public:
  // Throws UserError when `order` is not a permutation of tp, cp, ep, dp, pp (ep may be left out;
  // it then sits just inside dp).
  RankLayout(const ParallelSpec& parallel, const std::string& origin);

  std::uint32_t world() const { return world_; }
  Coordinates coordinates(std::uint32_t rank) const;
  // Every group of a slot whose members differ only in `varying` dimensions; members ordered by
  // those dimensions, the first listed innermost.
  std::vector<ProcessGroup> groups(const std::string& slot, const std::vector<Dim>& varying) const;

private:
  std::uint32_t size(Dim d) const { return sizes_[static_cast<int>(d)]; }
  std::uint32_t coordinate(std::uint32_t rank, Dim d) const;

  std::array<std::uint32_t, 5> sizes_{};
  std::array<std::uint32_t, 5> strides_{};
  std::uint32_t world_ = 1;
};

} // namespace echo::workloads
