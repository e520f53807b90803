#pragma once
// The communication operations a schedule can be built for.
#include <optional>
#include <string_view>

namespace echo::collectives {

enum class Op { all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, send_recv };

std::string_view to_string(Op op);
std::optional<Op> op_from_string(std::string_view name);  // "all_reduce", "allreduce", ...

} // namespace echo::collectives
