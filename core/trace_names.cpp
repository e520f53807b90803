#include "core/trace_names.hpp"

#include <stdexcept>

namespace echo::core {

collectives::Op to_collective_op(trace::CollectiveOp op) {
  switch (op) {
  case trace::ALL_REDUCE: return collectives::Op::all_reduce;
  case trace::ALL_GATHER: return collectives::Op::all_gather;
  case trace::REDUCE_SCATTER: return collectives::Op::reduce_scatter;
  case trace::BROADCAST: return collectives::Op::broadcast;
  case trace::REDUCE: return collectives::Op::reduce;
  case trace::ALL_TO_ALL: return collectives::Op::all_to_all;
  default: throw std::logic_error("collective without op reached the engine");
  }
}

std::string_view op_name(const workloads::ProgramTask& task) {
  switch (task.kind) {
  case workloads::TaskKind::compute: return "compute";
  case workloads::TaskKind::send: return "send";
  case workloads::TaskKind::recv: return "recv";
  case workloads::TaskKind::collective: return collectives::to_string(to_collective_op(task.op));
  }
  return "unknown";
}

std::string_view category_name(trace::Category category) {
  switch (category) {
  case trace::GEMM: return "gemm";
  case trace::ATTENTION: return "attention";
  case trace::NORMALIZATION: return "normalization";
  case trace::ELEMENTWISE: return "elementwise";
  case trace::REDUCTION: return "reduction";
  case trace::OPTIMIZER: return "optimizer";
  case trace::MEMCPY: return "memcpy";
  case trace::COMMUNICATION: return "communication";
  case trace::OTHER: return "other";
  case trace::HOST: return "host";
  case trace::CARRY_IN: return "carry_in";
  default: return "unspecified";
  }
}

} // namespace echo::core
