#include "workloads/overlap_table.hpp"

#include "workloads/importers/nccl_kernel_name.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <utility>

namespace echo::workloads {


OverlapTable overlap_table(const std::vector<MeasuredKernel>& overlapped, const std::vector<MeasuredKernel>& isolated) {
  // The n-th launch of a name in one run is the n-th launch of that name in the other.
  std::map<std::string, std::vector<const MeasuredKernel*>> alone;
  for (const MeasuredKernel& k : isolated)
    if (!k.nccl)
      alone[k.name].push_back(&k);
  std::map<std::string, std::size_t> seen;
  std::vector<const MeasuredKernel*> nccl;
  for (const MeasuredKernel& k : overlapped)
    if (k.nccl)
      nccl.push_back(&k);

  OverlapTable out;
  for (const MeasuredKernel& k : overlapped) {
    if (k.nccl)
      continue;
    const std::size_t n = seen[k.name]++;  // counted as the isolated run counts: every launch
    if (k.duration_ns <= 0)
      continue;
    const auto it = alone.find(k.name);
    if (it == alone.end() || n >= it->second.size() || it->second[n]->duration_ns <= 0) {
      ++out.unmatched;
      continue;
    }
    OverlapRow row;
    row.name = k.name;
    row.isolated_ns = static_cast<double>(it->second[n]->duration_ns);
    row.measured_ns = static_cast<double>(k.duration_ns);
    // The covered part of the kernel: the union of the NCCL kernels' spans on other streams.
    const std::int64_t begin = k.start_ns, end = k.start_ns + k.duration_ns;
    std::vector<std::pair<std::int64_t, std::int64_t>> spans;
    const MeasuredKernel* longest = nullptr;
    std::int64_t longest_ns = 0;
    for (const MeasuredKernel* c : nccl) {
      if (c->stream == k.stream)
        continue;
      const std::int64_t from = std::max(begin, c->start_ns), to = std::min(end, c->start_ns + c->duration_ns);
      if (to <= from)
        continue;
      spans.emplace_back(from, to);
      if (to - from > longest_ns) {
        longest_ns = to - from;
        longest = c;
      }
    }
    std::sort(spans.begin(), spans.end());
    std::int64_t covered = 0, reach = begin;
    for (const auto& [from, to] : spans) {
      covered += std::max<std::int64_t>(0, to - std::max(from, reach));
      reach = std::max(reach, to);
    }
    row.overlap_ratio = static_cast<double>(covered) / static_cast<double>(k.duration_ns);
    if (longest != nullptr) {
      row.op = longest->op;
      const NcclKernelName spelled = parse_nccl_kernel_name(longest->name);
      row.algorithm = spelled.algorithm;
      row.protocol = spelled.protocol;
      row.bytes = longest->bytes;
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

} // namespace echo::workloads
