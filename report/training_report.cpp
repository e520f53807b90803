#include "report/training_report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace echo::report {

namespace {

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string gb(double bytes) { return fixed(bytes / (1024.0 * 1024 * 1024), 1) + " GiB"; }

bool pipelined(const core::SimulationResult& r) { return r.training && r.training->pp > 1; }

} // namespace

std::optional<TrainingFigures> training_figures(const core::SimulationResult& r) {
  if (!r.training || r.iteration_time_s <= 0)
    return std::nullopt;
  const workloads::TrainingFacts& t = *r.training;
  TrainingFigures f;
  f.tokens_per_s = t.tokens_per_iteration / r.iteration_time_s;
  f.tflops_per_gpu = t.model_flops_per_iteration / r.iteration_time_s / r.ranks / 1e12;
  f.mfu = t.peak_flops_per_gpu > 0 ? f.tflops_per_gpu * 1e12 / t.peak_flops_per_gpu : 0;
  f.memory_capacity_bytes = t.memory_capacity_bytes;
  for (std::uint32_t rank = 0; rank < r.program_of_rank.size(); ++rank) {
    const workloads::MemoryBreakdown& m = t.memory_by_program[r.program_of_rank[rank]];
    if (m.total() > f.peak_memory_bytes) {
      f.peak_memory_bytes = m.total();
      f.peak_memory_rank = rank;
      f.peak_memory = m;
    }
  }
  std::map<std::string, double> by_kind;
  for (std::uint32_t rank = 0; rank < r.program_of_rank.size(); ++rank)
    if (r.program_of_rank[rank] < t.gpu_seconds_by_kind.size())
      for (const auto& [kind, s] : t.gpu_seconds_by_kind[r.program_of_rank[rank]])
        by_kind[kind] += s / static_cast<double>(r.program_of_rank.size());
  f.gpu_seconds_by_kind.assign(by_kind.begin(), by_kind.end());
  std::stable_sort(f.gpu_seconds_by_kind.begin(), f.gpu_seconds_by_kind.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return f;
}

IterationBreakdown iteration_breakdown(const core::SimulationResult& r) {
  IterationBreakdown b;
  std::vector<double> by_slot(r.slots.size(), 0.0);
  for (const core::RankBreakdown& rank : r.per_rank) {
    b.compute_s += rank.compute_s - rank.slowdown_s;
    b.overlap_slowdown_s += rank.slowdown_s;
    (pipelined(r) ? b.bubble_s : b.idle_s) += rank.idle_s;
    for (std::size_t s = 0; s < rank.exposed_by_slot_s.size() && s < by_slot.size(); ++s)
      by_slot[s] += rank.exposed_by_slot_s[s];
  }
  const double n = r.per_rank.empty() ? 1.0 : static_cast<double>(r.per_rank.size());
  b.compute_s /= n;
  b.overlap_slowdown_s /= n;
  b.bubble_s /= n;
  b.idle_s /= n;
  for (std::size_t s = 0; s < by_slot.size(); ++s)
    b.exposed_comm_s.emplace_back(r.slots[s], by_slot[s] / n);
  return b;
}

nlohmann::ordered_json training_json(const TrainingFigures& f) {
  const workloads::MemoryBreakdown& m = f.peak_memory;
  nlohmann::ordered_json by_kind = nlohmann::ordered_json::object();
  for (const auto& [kind, s] : f.gpu_seconds_by_kind)
    by_kind[kind] = s;
  return {{"tokens_per_s", f.tokens_per_s},
          {"tflops_per_gpu", f.tflops_per_gpu},
          {"mfu", f.mfu},
          {"peak_memory_bytes", f.peak_memory_bytes},
          {"peak_memory_rank", f.peak_memory_rank},
          {"memory_capacity_bytes", f.memory_capacity_bytes},
          {"peak_memory_breakdown_bytes",
           {{"weights", m.weights}, {"gradients", m.gradients}, {"optimizer", m.optimizer}, {"activations", m.activations},
            {"buffers", m.buffers}}},
          {"gpu_seconds_by_kind", by_kind}};
}

nlohmann::ordered_json breakdown_json(const IterationBreakdown& b) {
  nlohmann::ordered_json comm = nlohmann::ordered_json::object();
  for (const auto& [slot, s] : b.exposed_comm_s)
    comm[slot] = s;
  return {{"compute_s", b.compute_s},
          {"overlap_slowdown_s", b.overlap_slowdown_s},
          {"exposed_comm_s", comm},
          {"bubble_s", b.bubble_s},
          {"idle_s", b.idle_s}};
}

std::string training_text(const core::SimulationResult& r) {
  const auto f = training_figures(r);
  if (!f)
    return "";
  const workloads::TrainingFacts& t = *r.training;
  std::string out;
  out += "throughput:     " + fixed(f->tokens_per_s, 0) + " tokens/s, " + fixed(f->tflops_per_gpu, 1) +
         " model TFLOP/s per GPU, MFU " + fixed(100 * f->mfu, 1) + "% (of " + fixed(t.peak_flops_per_gpu / 1e12, 1) +
         " TFLOP/s, " + t.gpu + ")\n";
  const workloads::MemoryBreakdown& m = f->peak_memory;
  out += "memory:         peak " + gb(f->peak_memory_bytes) + " of " + gb(f->memory_capacity_bytes) + " (rank " +
         std::to_string(f->peak_memory_rank) + ": weights " + gb(m.weights) + ", gradients " + gb(m.gradients) +
         ", optimizer " + gb(m.optimizer) + ", activations " + gb(m.activations) + ", buffers " + gb(m.buffers) + ")\n";
  const IterationBreakdown b = iteration_breakdown(r);
  auto ms = [](double s) { return fixed(s * 1e3, 3) + " ms"; };
  double kernels_s = 0;
  for (const auto& [kind, s] : f->gpu_seconds_by_kind)
    kernels_s += s;
  if (kernels_s > 0) {
    out += "GPU work:       ";
    for (std::size_t i = 0; i < f->gpu_seconds_by_kind.size(); ++i)
      out += (i > 0 ? ", " : "") + f->gpu_seconds_by_kind[i].first + " " + fixed(100 * f->gpu_seconds_by_kind[i].second / kernels_s, 1) + "%";
    out += " of " + ms(kernels_s) + " of kernels (mean per rank, at full speed)\n";
  }
  out += "breakdown:      compute " + ms(b.compute_s);
  if (b.overlap_slowdown_s > 0)
    out += ", overlap slowdown " + ms(b.overlap_slowdown_s);
  for (const auto& [slot, s] : b.exposed_comm_s)
    if (s > 0)
      out += ", exposed " + slot + " " + ms(s);
  if (pipelined(r))
    out += ", pipeline bubble " + ms(b.bubble_s);
  else
    out += ", idle " + ms(b.idle_s);
  out += " (mean per rank)\n";
  return out;
}

} // namespace echo::report
