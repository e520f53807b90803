#include "report/slowdown_table.hpp"

#include "report/csv_cell.hpp"

#include "base/user_error.hpp"
#include "slowdown/features.hpp"
#include "workloads/ncu_report.hpp"
#include "workloads/overlap_table.hpp"

#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace echo::report {

namespace {

// A number as the kernel table reads it back; NaN as `nan`.
std::string cell(double v) {
  if (std::isnan(v))
    return "nan";
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

} // namespace

int write_slowdown_table(const SlowdownTableOptions& o) {
  const workloads::KinetoKernels overlapped = workloads::kineto_kernels(o.overlapped, o.step);
  const workloads::KinetoKernels isolated = workloads::kineto_kernels(o.isolated, o.step);
  const workloads::OverlapTable table = workloads::overlap_table(overlapped.kernels, isolated.kernels);
  if (table.rows.empty())
    throw UserError(o.isolated, 0, "no kernel of " + o.overlapped + " has a counterpart here (same name, same launch order)",
                    "profile the same program, the same step, once with and once without communication");
  // Metrics by name and launch order, as `import ncu` attaches them.
  std::map<std::string, std::vector<const trace::KernelMetrics*>> profiled;
  const std::vector<workloads::ProfiledKernel> report = workloads::read_ncu_csv(o.ncu);
  for (const workloads::ProfiledKernel& k : report)
    profiled[workloads::kernel_base_name(k.name)].push_back(&k.metrics);
  std::map<std::string, std::size_t> seen;
  std::size_t without_metrics = 0, overlapping = 0;

  std::ostringstream csv;
  csv << "kShortName,ground_truth,duration,overlap_ratio";
  for (std::size_t c = 1; c < slowdown::feature_names().size(); ++c)
    csv << "," << slowdown::feature_names()[c];
  for (const std::string& c : slowdown::collective_feature_names())
    csv << "," << c;
  csv << "\n";
  const double unknown = std::nan("");
  for (const workloads::OverlapRow& r : table.rows) {
    const std::string base = workloads::kernel_base_name(r.name);
    const std::size_t n = seen[base]++;
    const auto it = profiled.find(base);
    const trace::KernelMetrics* m = it != profiled.end() && n < it->second.size() ? it->second[n] : nullptr;
    without_metrics += m == nullptr;
    overlapping += r.overlap_ratio > 0;
    csv << csv_cell(base) << "," << cell(r.isolated_ns) << "," << cell(r.measured_ns) << "," << cell(r.overlap_ratio);
    // The metric columns in feature_names() order; the SM count is not in the report.
    const double metrics[] = {m ? m->compute_throughput() : unknown, unknown,
                              m ? m->memory_throughput() : unknown,  m ? m->dram_throughput() : unknown,
                              m ? m->achieved_occupancy() : unknown, m ? m->max_occupancy() : unknown,
                              m ? m->l1_hit_rate() : unknown,        m ? m->l2_hit_rate() : unknown};
    for (double v : metrics)
      csv << "," << cell(v);
    const bool beside = r.overlap_ratio > 0;
    const double op = !beside ? unknown : r.op == trace::OP_UNSPECIFIED ? 7.0 : static_cast<double>(r.op);
    csv << "," << cell(op) << "," << cell(beside ? slowdown::algorithm_code(r.algorithm) : unknown) << ","
        << cell(beside ? slowdown::protocol_code(r.protocol) : unknown) << "," << cell(unknown) << ","
        << cell(beside ? r.bytes : unknown) << "\n";
  }
  std::ofstream out(o.out);
  if (!(out << csv.str()))
    throw UserError(o.out, 0, "cannot write the table", "check the path");
  std::cout << "table: " << o.out << ", " << table.rows.size() << " kernels of " << overlapped.step << " ("
            << overlapping << " overlapped communication)";
  if (table.unmatched > 0)
    std::cout << "; " << table.unmatched << " without a counterpart in the isolated trace, left out";
  if (without_metrics > 0)
    std::cout << "; " << without_metrics << " without Nsight Compute metrics (nan)";
  std::cout << "\n";
  return 0;
}

} // namespace echo::report
