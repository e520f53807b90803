#pragma once
// Workload: everything the engine replays. A few shared rank programs, which program each rank
// runs, and the communicator instances each rank's slots resolve to. Memory grows with distinct
// programs plus ranks x slots — never with ranks x tasks.
#include "workloads/rank_program.hpp"
#include "workloads/training_facts.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace echo::workloads {

struct CommunicatorDef {
  std::string name;
  std::uint32_t slot = 0;
  std::vector<std::uint32_t> ranks;  // member index -> global rank
};

class Workload {
public:
  std::string name;
  std::string source;                           // file it was read from, for messages
  std::vector<std::string> slots;               // communicator slot names
  std::vector<RankProgram> programs;
  std::vector<std::uint32_t> program_of_rank;   // global rank -> index into programs
  std::vector<CommunicatorDef> communicators;
  std::uint64_t measured_iteration_ns = 0;
  std::vector<std::string> notes;               // what the importer inferred or assumed (trace.proto)
  std::optional<TrainingFacts> training;        // generated from a model config: tokens, FLOPs, memory
  // A communicator slot whose members are interchangeable: every member of each of its
  // communicators runs the same program and does the same thing at the same time (a generated
  // job's `tp`). The engine may then simulate one member per communicator (core/rank_folding.hpp).
  std::string symmetric_slot;
  // Slots whose communicators make their members wait for each other often enough that, when
  // GPUs' speeds spread, each member runs at the slowest one's pace (core/gpu_speed_spread.hpp):
  // a generated job's `tp` and `dp` (the data-parallel group with its CP and EP members).
  std::vector<std::string> paced_slots;

  std::uint32_t rank_count() const { return static_cast<std::uint32_t>(program_of_rank.size()); }
  const RankProgram& program(std::uint32_t rank) const { return programs[program_of_rank[rank]]; }
  // Communicator of `rank` for `slot`, or -1 when the rank is in none.
  std::int32_t communicator(std::uint32_t rank, std::uint32_t slot) const {
    return comm_of_rank_slot_[static_cast<std::size_t>(rank) * slots.size() + slot];
  }
  // Member index of `rank` inside its communicator for `slot`.
  std::uint32_t member_index(std::uint32_t rank, std::uint32_t slot) const {
    return member_of_rank_slot_[static_cast<std::size_t>(rank) * slots.size() + slot];
  }
  std::uint64_t total_tasks() const;
  // A what-if on the GPU: every compute kernel, copy, memset (and work carried in from the previous
  // iteration) takes `factor` of its time; host time and communication are unchanged.
  void scale_gpu_time(double factor);

  // Fills the rank x slot tables from `communicators`; called by builders.
  void index_communicators();

private:
  std::vector<std::int32_t> comm_of_rank_slot_;
  std::vector<std::uint32_t> member_of_rank_slot_;
};

} // namespace echo::workloads
