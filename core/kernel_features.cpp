#include "core/kernel_features.hpp"

#include "core/trace_names.hpp"
#include "slowdown/features.hpp"

#include <algorithm>
#include <cmath>

namespace echo::core {

slowdown::Kernel kernel_of(const workloads::RankProgram& program, const workloads::ProgramTask& task) {
  slowdown::Kernel k{category_name(task.category), static_cast<double>(task.duration_ns) * 1e-9, {}, {}};
  if (task.metrics != workloads::kNoMetrics) {
    const trace::KernelMetrics& m = program.metrics[task.metrics];
    k.features = {static_cast<float>(task.duration_ns),       static_cast<float>(m.compute_throughput()),
                  std::nanf(""),                                static_cast<float>(m.memory_throughput()),
                  static_cast<float>(m.dram_throughput()),      static_cast<float>(m.achieved_occupancy()),
                  static_cast<float>(m.max_occupancy()),        static_cast<float>(m.l1_hit_rate()),
                  static_cast<float>(m.l2_hit_rate())};
  }
  return k;
}

MetricsCoverage metrics_coverage(const std::vector<workloads::RankProgram>& programs) {
  MetricsCoverage c;
  for (const workloads::RankProgram& p : programs)
    for (const workloads::ProgramTask& t : p.tasks)
      if (t.kind == workloads::TaskKind::compute) {
        ++c.kernels;
        c.without += t.metrics == workloads::kNoMetrics;
      }
  return c;
}

std::vector<std::vector<double>> slowdowns_by_task(const std::vector<workloads::RankProgram>& programs,
                                                   const slowdown::Predictor& predictor) {
  std::vector<std::vector<double>> out;
  for (const workloads::RankProgram& p : programs) {
    std::vector<slowdown::Kernel> kernels;
    std::vector<std::size_t> index;
    for (std::size_t t = 0; t < p.tasks.size(); ++t)
      if (p.tasks[t].kind == workloads::TaskKind::compute) {
        kernels.push_back(kernel_of(p, p.tasks[t]));
        index.push_back(t);
      }
    std::vector<double> s(p.tasks.size(), 0.0);
    const std::vector<double> predicted = predictor.slowdowns(kernels);
    for (std::size_t k = 0; k < index.size(); ++k)
      s[index[k]] = std::max(0.0, predicted[k]);  // a kernel does not speed up beside communication
    out.push_back(std::move(s));
  }
  return out;
}

double SlowdownByCollective::of(std::uint32_t program, std::uint32_t task, const std::vector<float>& collective) {
  const auto key = std::make_tuple(program, task, &collective);
  const auto it = cache_.find(key);
  if (it != cache_.end())
    return it->second;
  slowdown::Kernel k = kernel_of(programs_[program], programs_[program].tasks[task]);
  k.collective = collective;
  const double s = std::max(0.0, predictor_.slowdown(k));  // a kernel does not speed up beside communication
  cache_.emplace(key, s);
  return s;
}

} // namespace echo::core
