#include "workloads/ncu_report.hpp"

#include "base/user_error.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>

namespace echo::workloads {

namespace {

enum Metric { compute, memory, dram, achieved, theoretical, l1, l2, grid, block, kMetrics };

const std::array<const char*, kMetrics> kDetailNames = {"Compute (SM) Throughput", "Memory Throughput", "DRAM Throughput",
                                                        "Achieved Occupancy", "Theoretical Occupancy", "L1/TEX Hit Rate",
                                                        "L2 Hit Rate", "Grid Size", "Block Size"};
const std::array<const char*, kMetrics> kRawNames = {
    "sm__throughput.avg.pct_of_peak_sustained_elapsed", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__maximum_warps_per_active_cycle_pct", "l1tex__t_sector_hit_rate.pct", "lts__t_sector_hit_rate.pct",
    "launch__grid_size", "launch__block_size"};

std::optional<Metric> metric_of(const std::string& name) {
  for (int m = 0; m < kMetrics; ++m)
    if (name == kDetailNames[m] || name == kRawNames[m])
      return static_cast<Metric>(m);
  return std::nullopt;
}

// One CSV record, RFC 4180 quoting (ncu quotes every field; kernel names hold commas).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

// Grid and block sizes are counts a kernel launch holds in 32 bits; the rest are percentages and times.
double number(std::string text, const std::string& path, int line, const std::string& what, bool launch_count) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());  // "1,024" in the details page
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < 0)
    throw UserError(path, line, what + " is not a number: '" + text + "'", "give the report as `ncu --csv` wrote it");
  if (launch_count && v > 4294967295.0)
    throw UserError(path, line, what + " is larger than a kernel launch can be: '" + text + "'",
                    "give the report as `ncu --csv` wrote it");
  return v;
}

void set_metric(trace::KernelMetrics& k, Metric m, double v) {
  switch (m) {
  case compute: k.set_compute_throughput(v); break;
  case memory: k.set_memory_throughput(v); break;
  case dram: k.set_dram_throughput(v); break;
  case achieved: k.set_achieved_occupancy(v); break;
  case theoretical: k.set_max_occupancy(v); break;
  case l1: k.set_l1_hit_rate(v); break;
  case l2: k.set_l2_hit_rate(v); break;
  case grid: k.set_grid_size(static_cast<std::uint32_t>(v)); break;
  case block: k.set_block_size(static_cast<std::uint32_t>(v)); break;
  case kMetrics: break;
  }
}

struct Pending {
  ProfiledKernel kernel;
  std::array<bool, kMetrics> seen{};
  int line = 0;
};

void require_all(const Pending& p, const std::string& path) {
  for (int m = 0; m < kMetrics; ++m)
    if (!p.seen[m])
      throw UserError(path, p.line, "kernel '" + p.kernel.name + "' has no " + kDetailNames[m] + " (" + kRawNames[m] + ")",
                      "profile with `ncu --set full` (or the SpeedOfLight, Occupancy, LaunchStats and "
                      "MemoryWorkloadAnalysis sections) and export with `ncu --csv`");
}

int column(const std::vector<std::string>& header, const std::string& name) {
  const auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

} // namespace

std::string kernel_base_name(const std::string& name) {
  std::string s = name.rfind("void ", 0) == 0 ? name.substr(5) : name;
  static const std::string anonymous = "(anonymous namespace)";
  std::string out;
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' && depth == 0) {
      if (s.compare(i, anonymous.size(), anonymous) != 0)
        break;  // the parameter list
      out += anonymous;  // part of the qualified name: at::native::(anonymous namespace)::kernel
      i += anonymous.size() - 1;
      continue;
    }
    if (c == '<')
      ++depth;
    else if (c == '>' && depth > 0)
      --depth;
    else if (depth == 0)
      out += c;
  }
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out;
}

std::vector<ProfiledKernel> read_ncu_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw UserError(path, 0, "cannot read the Nsight Compute report", "export it with `ncu --import REPORT.ncu-rep --csv > REPORT.csv`");
  std::string text;
  int line_no = 0;
  std::vector<std::string> header;
  // ncu may print "==PROF==" lines before the table.
  while (std::getline(in, text)) {
    ++line_no;
    if (text.rfind("\"ID\"", 0) == 0 || text.rfind("ID,", 0) == 0) {
      header = split_csv(text);
      break;
    }
  }
  const int name_col = column(header, "Kernel Name"), id_col = column(header, "ID");
  if (header.empty() || name_col < 0 || id_col < 0)
    throw UserError(path, 0, "not an Nsight Compute CSV report (no header with \"ID\" and \"Kernel Name\")",
                    "export the report with `ncu --csv` (details or raw page)");
  const int metric_name_col = column(header, "Metric Name"), metric_value_col = column(header, "Metric Value");
  std::vector<Pending> kernels;
  if (metric_name_col >= 0 && metric_value_col >= 0) {  // details page: one row per metric
    std::map<std::string, std::size_t> by_id;
    while (std::getline(in, text)) {
      ++line_no;
      const auto f = split_csv(text);
      if (f.size() < header.size())
        continue;
      const auto [it, fresh] = by_id.emplace(f[static_cast<std::size_t>(id_col)], kernels.size());
      if (fresh)
        kernels.push_back({{f[static_cast<std::size_t>(name_col)], {}}, {}, line_no});
      Pending& k = kernels[it->second];
      if (const auto m = metric_of(f[static_cast<std::size_t>(metric_name_col)])) {
        set_metric(k.kernel.metrics, *m,
                   number(f[static_cast<std::size_t>(metric_value_col)], path, line_no, kDetailNames[*m], *m == grid || *m == block));
        k.seen[*m] = true;
      }
    }
  } else {  // raw page: one row per kernel, one column per metric, a row of units first
    std::array<int, kMetrics> col{};
    for (int m = 0; m < kMetrics; ++m) {
      col[m] = column(header, kRawNames[m]);
      if (col[m] < 0)
        col[m] = column(header, kDetailNames[m]);
    }
    while (std::getline(in, text)) {
      ++line_no;
      const auto f = split_csv(text);
      if (f.size() < header.size() || f[static_cast<std::size_t>(id_col)].empty())
        continue;  // the units row
      Pending k{{f[static_cast<std::size_t>(name_col)], {}}, {}, line_no};
      for (int m = 0; m < kMetrics; ++m)
        if (col[m] >= 0) {
          set_metric(k.kernel.metrics, static_cast<Metric>(m), number(f[static_cast<std::size_t>(col[m])], path, line_no, kRawNames[m], m == grid || m == block));
          k.seen[m] = true;
        }
      kernels.push_back(std::move(k));
    }
  }
  if (kernels.empty())
    throw UserError(path, 0, "the report has no kernels", "profile the run with ncu and export it with `ncu --csv`");
  std::vector<ProfiledKernel> out;
  for (const Pending& p : kernels) {
    require_all(p, path);
    out.push_back(p.kernel);
  }
  return out;
}

NcuAttachment attach_ncu_metrics(trace::Trace& t, const std::vector<ProfiledKernel>& kernels) {
  std::map<std::string, std::vector<const ProfiledKernel*>> by_name;
  for (const ProfiledKernel& k : kernels)
    by_name[kernel_base_name(k.name)].push_back(&k);
  NcuAttachment a;
  for (trace::RankTemplate& tmpl : *t.mutable_templates()) {
    std::map<std::string, std::size_t> used;
    for (trace::Task& task : *tmpl.mutable_tasks()) {
      if (!task.has_compute())
        continue;
      const std::string base = kernel_base_name(task.name());
      const auto it = by_name.find(base);
      std::size_t& n = used[base];
      if (it == by_name.end() || n >= it->second.size()) {
        if (!task.compute().has_metrics())
          ++a.tasks_without;
        continue;
      }
      *task.mutable_compute()->mutable_metrics() = it->second[n++]->metrics;
      ++a.attached;
    }
    for (const auto& [name, list] : by_name)
      a.unmatched_kernels += list.size() - std::min(list.size(), used[name]);
  }
  return a;
}

} // namespace echo::workloads
