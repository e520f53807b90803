#include "workloads/workload.hpp"

#include <cmath>

namespace echo::workloads {

std::uint64_t Workload::total_tasks() const {
  std::vector<std::uint64_t> ranks_per_program(programs.size(), 0);
  for (std::uint32_t p : program_of_rank)
    ++ranks_per_program[p];
  std::uint64_t total = 0;
  for (std::size_t p = 0; p < programs.size(); ++p)
    total += ranks_per_program[p] * programs[p].task_count();
  return total;
}

void Workload::index_communicators() {
  const std::size_t cells = static_cast<std::size_t>(rank_count()) * slots.size();
  comm_of_rank_slot_.assign(cells, -1);
  member_of_rank_slot_.assign(cells, 0);
  for (std::size_t c = 0; c < communicators.size(); ++c) {
    const CommunicatorDef& comm = communicators[c];
    for (std::size_t m = 0; m < comm.ranks.size(); ++m) {
      const std::size_t cell = static_cast<std::size_t>(comm.ranks[m]) * slots.size() + comm.slot;
      comm_of_rank_slot_[cell] = static_cast<std::int32_t>(c);
      member_of_rank_slot_[cell] = static_cast<std::uint32_t>(m);
    }
  }
}

void Workload::scale_gpu_time(double factor) {
  if (factor == 1.0)
    return;
  for (RankProgram& p : programs)
    for (ProgramTask& t : p.tasks)
      if (t.kind == TaskKind::compute && t.category != trace::HOST)
        t.duration_ns = static_cast<std::uint64_t>(std::llround(static_cast<double>(t.duration_ns) * factor));
}

} // namespace echo::workloads
