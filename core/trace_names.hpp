#pragma once
// Names of trace enums as they appear in outputs, and the mapping of trace ops to the
// collective model's ops.
#include "collectives/op.hpp"
#include "workloads/rank_program.hpp"

#include <string_view>

namespace echo::core {

collectives::Op to_collective_op(trace::CollectiveOp op);
std::string_view op_name(const workloads::ProgramTask& task);  // "all_reduce", "send", "recv", "compute"
std::string_view category_name(trace::Category category);

} // namespace echo::core
