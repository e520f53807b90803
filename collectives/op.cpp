#include "collectives/op.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace echo::collectives {

namespace {
constexpr std::array<std::pair<Op, std::string_view>, 7> kNames = {{
    {Op::all_reduce, "all_reduce"},
    {Op::all_gather, "all_gather"},
    {Op::reduce_scatter, "reduce_scatter"},
    {Op::broadcast, "broadcast"},
    {Op::reduce, "reduce"},
    {Op::all_to_all, "all_to_all"},
    {Op::send_recv, "send_recv"},
}};
} // namespace

std::string_view to_string(Op op) {
  for (const auto& [o, name] : kNames)
    if (o == op)
      return name;
  return "unknown";
}

std::optional<Op> op_from_string(std::string_view name) {
  // Accept NCCL's spellings too: "allreduce", "AllReduce", "all_reduce".
  std::string folded;
  for (char c : name)
    if (c != '_' && c != '-')
      folded += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& [o, n] : kNames) {
    std::string candidate;
    for (char c : n)
      if (c != '_')
        candidate += c;
    if (candidate == folded)
      return o;
  }
  return std::nullopt;
}

} // namespace echo::collectives
