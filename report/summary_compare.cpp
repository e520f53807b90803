#include "report/summary_compare.hpp"

#include "report/job_record.hpp"

#include "base/user_error.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

namespace echo::report {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// "+12.3%", or "" when there is nothing to compare against (under a nanosecond counts as none).
std::string change(double a, double b) {
  constexpr double kNone = 1e-9;
  if (std::abs(a) < kNone)
    return std::abs(b) < kNone ? "+0.0%" : "";
  return format("%+.1f%%", 100.0 * (b - a) / a);
}

struct Means {
  double compute_s = 0, exposed_comm_s = 0, idle_s = 0;
};

Means means(const json& s) {
  Means m;
  const auto& ranks = s["ranks"];
  for (const auto& r : ranks) {
    m.compute_s += r.value("compute_s", 0.0);
    m.exposed_comm_s += r.value("exposed_comm_s", 0.0);
    m.idle_s += r.value("idle_s", 0.0);
  }
  if (!ranks.empty()) {
    m.compute_s /= static_cast<double>(ranks.size());
    m.exposed_comm_s /= static_cast<double>(ranks.size());
    m.idle_s /= static_cast<double>(ranks.size());
  }
  return m;
}

using CollectiveKey = std::tuple<std::string, std::string, std::uint64_t>;

std::map<CollectiveKey, json> collectives_of(const json& s) {
  std::map<CollectiveKey, json> out;
  if (s.contains("collectives") && s["collectives"].is_array())
    for (const auto& c : s["collectives"])
      out[{c.value("communicator", ""), c.value("op", ""), c.value("bytes", std::uint64_t{0})}] = c;
  return out;
}

// The settings that differ between the runs, or that one run has and the other not.
std::string settings_diff(const json& a, const json& b) {
  const auto sa = recorded_settings(a), sb = recorded_settings(b);
  if (sa.empty() && sb.empty())
    return "settings: neither summary records them (written before echo-des recorded its jobs)\n\n";
  if (sa.empty() || sb.empty())
    return "settings: only " + std::string(sa.empty() ? "B" : "A") + "'s summary records them\n\n";
  std::map<std::string, std::pair<std::string, std::string>> all;
  for (const auto& [k, v] : sa)
    all[k].first = v;
  for (const auto& [k, v] : sb)
    all[k].second = v;
  // Columns as wide as what they hold (a file name or an origin can be long).
  std::vector<std::array<std::string, 3>> rows;
  std::array<std::size_t, 3> width = {0, 1, 1};
  for (const auto& [k, v] : all)
    if (v.first != v.second) {
      rows.push_back({k, v.first.empty() ? "-" : v.first, v.second.empty() ? "-" : v.second});
      for (std::size_t c = 0; c < 3; ++c)
        width[c] = std::max(width[c], rows.back()[c].size());
    }
  if (rows.empty())
    return "settings: the same\n\n";
  std::string out = "settings that differ:\n";
  for (const auto& r : rows)
    out += "  " + r[0] + std::string(width[0] - r[0].size() + 2, ' ') + r[1] + std::string(width[1] - r[1].size() + 2, ' ') + r[2] + "\n";
  return out + "\n";
}

const json* training_of(const json& s) {
  return s.contains("training") && s["training"].is_object() ? &s["training"] : nullptr;
}

std::string workload_name(const json& s) {
  const auto& w = s["workload"];
  return w.is_object() ? w.value("name", w.value("source", "")) : "";
}

} // namespace

json read_summary(const std::string& path) {
  fs::path file(path);
  if (fs::is_directory(file))
    file /= "summary.json";
  std::ifstream in(file);
  if (!in)
    throw UserError(file.string(), 0, "cannot read the summary",
                    "give a summary.json, or a folder written by `echo-des run --out`");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw UserError(file.string(), 0, std::string("not JSON: ") + e.what(), "give a summary.json written by echo-des");
  }
  if (!j.is_object() || !j.contains("iteration_time_s") || !j["iteration_time_s"].is_number() || !j.contains("ranks") ||
      !j["ranks"].is_array())
    throw UserError(file.string(), 0, "not an echo-des summary: it has no iteration_time_s and ranks",
                    "give a summary.json written by `echo-des run --out`");
  return j;
}

std::string compare_summaries(const json& a, const std::string& a_name, const json& b, const std::string& b_name,
                              std::size_t max_collectives) {
  std::string out = settings_diff(a, b);
  out += format("%-22s %18s %18s %10s\n", "", "A", "B", "change");
  auto row = [&](const char* label, double va, double vb) {
    out += format("%-22s %15.6f ms %15.6f ms %10s\n", label, va * 1e3, vb * 1e3, change(va, vb).c_str());
  };
  row("iteration time", a["iteration_time_s"].get<double>(), b["iteration_time_s"].get<double>());
  // Throughput, efficiency and memory of generated jobs.
  const json *ta = training_of(a), *tb = training_of(b);
  if (ta && tb) {
    auto figure = [&](const char* label, const char* key, double scale, const char* unit) {
      const double va = ta->value(key, 0.0) * scale, vb = tb->value(key, 0.0) * scale;
      out += format("%-22s %15.2f %-2s %15.2f %-2s %10s\n", label, va, unit, vb, unit, change(va, vb).c_str());
    };
    figure("tokens/s", "tokens_per_s", 1.0, "");
    figure("TFLOP/s per GPU", "tflops_per_gpu", 1.0, "");
    figure("MFU", "mfu", 100.0, "%");
    figure("peak memory", "peak_memory_bytes", 1.0 / (1024.0 * 1024 * 1024), "GiB");
  } else if (ta || tb) {
    out += std::string("tokens/s, MFU, memory: only ") + (ta ? "A" : "B") + " is a generated job\n";
  }
  const Means ma = means(a), mb = means(b);
  row("compute (rank mean)", ma.compute_s, mb.compute_s);
  row("exposed comm (mean)", ma.exposed_comm_s, mb.exposed_comm_s);
  row("idle (rank mean)", ma.idle_s, mb.idle_s);
  out += "\nA: " + a_name + "\n   " + workload_name(a) + " on " + a["platform"].value("description", std::string()) + "\n";
  out += "B: " + b_name + "\n   " + workload_name(b) + " on " + b["platform"].value("description", std::string()) + "\n";
  if (workload_name(a) != workload_name(b) || a["ranks"].size() != b["ranks"].size())
    out += "note: the two runs are of different workloads; only what both have is compared\n";

  // Collectives present in both, by how much their time changed.
  const auto ca = collectives_of(a), cb = collectives_of(b);
  if (ca.empty() != cb.empty())
    out += std::string("\ncollectives: only ") + (ca.empty() ? "B" : "A") + " has any\n";
  struct Diff {
    CollectiveKey key;
    double ta, tb;
    std::string alg_a, alg_b;
  };
  std::vector<Diff> diffs;
  for (const auto& [key, c] : ca)
    if (auto it = cb.find(key); it != cb.end())
      diffs.push_back({key, c.value("total_s", 0.0), it->second.value("total_s", 0.0), c.value("algorithm", ""),
                       it->second.value("algorithm", "")});
  std::stable_sort(diffs.begin(), diffs.end(),
                   [](const Diff& x, const Diff& y) { return std::abs(x.tb - x.ta) > std::abs(y.tb - y.ta); });
  if (!diffs.empty()) {
    out += "\nlargest collective differences (summed over their calls):\n";
    for (std::size_t i = 0; i < diffs.size() && i < max_collectives; ++i) {
      const Diff& d = diffs[i];
      const auto& [comm, op, bytes] = d.key;
      out += format("  %-12s %-15s %13llu B  %12.6f ms %-16s -> %12.6f ms %-16s %10s\n", comm.c_str(), op.c_str(),
                    static_cast<unsigned long long>(bytes), d.ta * 1e3, d.alg_a.c_str(), d.tb * 1e3, d.alg_b.c_str(),
                    change(d.ta, d.tb).c_str());
    }
  }
  return out;
}

} // namespace echo::report
