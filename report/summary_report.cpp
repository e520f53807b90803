#include "report/summary_report.hpp"

#include "report/job_record.hpp"

#include "core/collective_timing.hpp"
#include "core/critical_path.hpp"
#include "report/training_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace echo::report {

namespace {

constexpr std::size_t kCollectivesListed = 100;
constexpr std::size_t kCriticalListed = 10000;

// Compute time overlap added, per rank: mean and worst.
struct SlowdownCost {
  double mean_s = 0.0, max_s = 0.0;
};
SlowdownCost slowdown_cost(const core::SimulationResult& r) {
  SlowdownCost c;
  for (const core::RankBreakdown& b : r.per_rank) {
    c.mean_s += b.slowdown_s;
    c.max_s = std::max(c.max_s, b.slowdown_s);
  }
  if (!r.per_rank.empty())
    c.mean_s /= static_cast<double>(r.per_rank.size());
  return c;
}

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string ms(double seconds) { return fixed(seconds * 1e3, 6); }

std::string row(const std::string& label, double compute_s, double comm_s, double idle_s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%8s %14s %17s %14s\n", label.c_str(), ms(compute_s).c_str(), ms(comm_s).c_str(),
                ms(idle_s).c_str());
  return buf;
}

} // namespace

nlohmann::ordered_json summary_json(const core::SimulationResult& r, bool with_wall_clock) {
  nlohmann::ordered_json j;
  j["workload"] = {{"name", r.workload_name}, {"source", r.workload_source}, {"ranks", r.ranks}, {"tasks", r.tasks}};
  if (r.training && !r.training->settings.empty()) {
    nlohmann::ordered_json settings = nlohmann::ordered_json::object();
    for (const auto& [key, value] : r.training->settings)
      settings[key] = value;
    j["workload"]["settings"] = settings;
  }
  j["platform"] = {{"description", r.platform}, {"gpus", r.gpus}};
  if (r.job)
    j["job"] = job_record(*r.job);
  {
    const SlowdownCost cost = slowdown_cost(r);
    j["overlap_slowdown"] = {{"model", r.slowdown_model.empty() ? "none" : r.slowdown_model},
                             {"mean_s", cost.mean_s},
                             {"max_s", cost.max_s}};
    if (r.compute_kernels > 0)
      j["overlap_slowdown"]["kernels_without_metrics"] = r.kernels_without_metrics;
  }
  j["iteration_time_s"] = r.iteration_time_s;
  j["iteration_time_ns"] = r.iteration_ns;
  if (r.measured_iteration_ns > 0) {
    j["measured_iteration_time_s"] = static_cast<double>(r.measured_iteration_ns) * 1e-9;
    j["error_vs_measured"] =
        (static_cast<double>(r.iteration_ns) - static_cast<double>(r.measured_iteration_ns)) / static_cast<double>(r.measured_iteration_ns);
  }
  if (!r.notes.empty())
    j["import_notes"] = r.notes;
  if (!r.run_notes.empty())
    j["notes"] = r.run_notes;
  if (const auto figures = training_figures(r)) {
    j["training"] = training_json(*figures);
    j["breakdown"] = breakdown_json(iteration_breakdown(r));
  }
  auto& ranks = j["ranks"] = nlohmann::ordered_json::array();
  for (const core::RankBreakdown& b : r.per_rank)
  {
    nlohmann::json by_slot = nlohmann::json::object();
    for (std::size_t s = 0; s < b.exposed_by_slot_s.size() && s < r.slots.size(); ++s)
      if (b.exposed_by_slot_s[s] > 0)
        by_slot[r.slots[s]] = b.exposed_by_slot_s[s];
    ranks.push_back({{"rank", b.rank},
                     {"compute_s", b.compute_s},
                     {"exposed_comm_s", b.exposed_comm_s},
                     {"exposed_comm_by_slot_s", by_slot},
                     {"overlap_slowdown_s", b.slowdown_s},
                     {"idle_s", b.idle_s},
                     {"host_bound_s", b.host_bound_s},
                     {"host_busy_s", b.host_busy_s},
                     {"end_s", b.end_s}});
    if (r.training && b.rank < r.program_of_rank.size())
      ranks.back()["memory_bytes"] = r.training->memory_by_program[r.program_of_rank[b.rank]].total();
  }
  // The collectives that took longest (first arrival to last finish, summed over their calls).
  auto& collectives = j["collectives"] = nlohmann::json::array();
  for (std::size_t i = 0; i < r.collective_stats.size() && i < kCollectivesListed; ++i) {
    const core::CollectiveStat& c = r.collective_stats[i];
    collectives.push_back({{"communicator", c.communicator},
                           {"op", c.op},
                           {"bytes", c.bytes},
                           {"calls", c.calls},
                           {"total_s", c.total_s},
                           {"algorithm", c.choice}});
  }
  if (!r.critical_path.empty()) {
    auto& path = j["critical_path"] = nlohmann::json::array();
    for (std::size_t i = 0; i < r.critical_path.size() && i < kCriticalListed; ++i) {
      const core::CriticalSegment& c = r.critical_path[i];
      path.push_back({{"name", c.name}, {"kind", c.kind}, {"rank", c.rank}, {"start_s", c.start_s}, {"duration_s", c.duration_s}});
    }
    // What the iteration's time is made of.
    auto& contributors = j["critical_path_top"] = nlohmann::json::array();
    for (const core::CriticalContribution& c : core::critical_path_top(r.critical_path, 20))
      contributors.push_back({{"name", c.name}, {"kind", c.kind}, {"duration_s", c.duration_s}});
  }
  auto& sim = j["simulation"] = {
      {"events", r.events}, {"collectives", r.collectives}, {"collectives_too_large_for_steps", r.collectives_too_large}};
  if (with_wall_clock) {
    sim["wall_s"] = r.wall_s;
    sim["run_wall_s"] = r.run_wall_s;
    sim["events_per_s"] = r.run_wall_s > 0 ? static_cast<double>(r.events) / r.run_wall_s : 0.0;
    sim["peak_rss_mb"] = r.peak_rss_mb;
  }
  return j;
}

std::string text_summary(const core::SimulationResult& r) {
  std::string out;
  out += "workload:       " + (r.workload_name.empty() ? r.workload_source : r.workload_name + " (" + r.workload_source + ")") +
         ", " + std::to_string(r.ranks) + " ranks, " + std::to_string(r.tasks) + " tasks\n";
  out += "platform:       " + r.platform + ", " + std::to_string(r.gpus) + " GPUs\n";
  out += "iteration time: " + ms(r.iteration_time_s) + " ms (" + std::to_string(r.iteration_ns) + " ns)\n";
  if (r.measured_iteration_ns > 0) {
    const double measured = static_cast<double>(r.measured_iteration_ns);
    out += "measured:       " + ms(measured * 1e-9) + " ms, prediction error " +
           fixed(100.0 * (static_cast<double>(r.iteration_ns) - measured) / measured, 2) + "%\n";
  }
  out += training_text(r);
  if (r.slowdown_model != "none" && !r.slowdown_model.empty()) {
    const double mean = slowdown_cost(r).mean_s;
    out += "overlap slowdown: +" + ms(mean) + " ms (" +
           fixed(r.iteration_time_s > 0 ? 100.0 * mean / r.iteration_time_s : 0.0, 2) +
           "% of the iteration), compute stretched by communication beside it, mean per rank (" +
           r.slowdown_model + " model)\n";
  }
  if (r.kernels_without_metrics > 0)
    out += "note:           " + std::to_string(r.kernels_without_metrics) + " of " + std::to_string(r.compute_kernels) +
           " compute kernels have no Nsight Compute metrics: the " + r.slowdown_model +
           " model gave them their category's default slowdown (attach metrics with `echo-des import ncu`)\n";
  double host_bound = 0.0, host_busy = 0.0;
  for (const core::RankBreakdown& b : r.per_rank) {
    host_bound += b.host_bound_s;
    host_busy += b.host_busy_s;
  }
  if (host_bound > 0 && !r.per_rank.empty() && r.iteration_time_s > 0) {
    const double ranks = static_cast<double>(r.per_rank.size());
    out += "host-bound:     the GPU waited for its host's launches " + fixed(100.0 * host_bound / ranks / r.iteration_time_s, 1) +
           "% of the iteration (mean over ranks; within idle); the host thread worked " + fixed(host_busy / ranks * 1e3, 3) +
           " ms\n";
  }
  for (const std::string& note : r.notes)
    out += "note:           " + note + "\n";
  for (const std::string& note : r.run_notes)
    out += "note:           " + note + "\n";
  if (r.collectives_too_large > 0)
    out += "note:           " + std::to_string(r.collectives_too_large) +
           " collective calls had schedules of more than " + std::to_string(core::kMaxStepsPerCall) +
           " steps and ran at analytic fidelity\n";
  out += "\n";
  char header[160];
  std::snprintf(header, sizeof header, "%8s %14s %17s %14s\n", "rank", "compute_ms", "exposed_comm_ms", "idle_ms");
  out += header;
  // Every rank for small jobs; for large ones the first ranks and the spread over all of them.
  constexpr std::size_t kShown = 16;
  for (std::size_t i = 0; i < r.per_rank.size() && i < kShown; ++i) {
    const core::RankBreakdown& b = r.per_rank[i];
    out += row(std::to_string(b.rank), b.compute_s, b.exposed_comm_s, b.idle_s);
  }
  if (r.per_rank.size() > kShown) {
    out += "     ... " + std::to_string(r.per_rank.size() - kShown) + " more ranks (all of them with --json)\n";
    core::RankBreakdown lo = r.per_rank.front(), hi = lo, sum{};
    for (const core::RankBreakdown& b : r.per_rank) {
      lo.compute_s = std::min(lo.compute_s, b.compute_s);
      lo.exposed_comm_s = std::min(lo.exposed_comm_s, b.exposed_comm_s);
      lo.idle_s = std::min(lo.idle_s, b.idle_s);
      hi.compute_s = std::max(hi.compute_s, b.compute_s);
      hi.exposed_comm_s = std::max(hi.exposed_comm_s, b.exposed_comm_s);
      hi.idle_s = std::max(hi.idle_s, b.idle_s);
      sum.compute_s += b.compute_s;
      sum.exposed_comm_s += b.exposed_comm_s;
      sum.idle_s += b.idle_s;
    }
    const auto n = static_cast<double>(r.per_rank.size());
    out += row("min", lo.compute_s, lo.exposed_comm_s, lo.idle_s);
    out += row("mean", sum.compute_s / n, sum.exposed_comm_s / n, sum.idle_s / n);
    out += row("max", hi.compute_s, hi.exposed_comm_s, hi.idle_s);
  }
  return out;
}

std::string simulation_stats_line(const core::SimulationResult& r) {
  const double rate = r.run_wall_s > 0 ? static_cast<double>(r.events) / r.run_wall_s : 0.0;
  return "simulation: " + std::to_string(r.events) + " events in " + fixed(r.run_wall_s, 3) + " s (" + fixed(rate, 0) +
         " events/s), job " + fixed(r.wall_s, 3) + " s, peak RSS " + fixed(r.peak_rss_mb, 1) + " MB";
}

} // namespace echo::report
