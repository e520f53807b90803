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

// Relative change b / a - 1; null when there is nothing to compare against (under a nanosecond,
// or a byte, counts as none).
json relative(double a, double b) {
  constexpr double kNone = 1e-9;
  if (std::abs(a) < kNone)
    return std::abs(b) < kNone ? json(0.0) : json(nullptr);
  return (b - a) / a;
}

// The same as text: "+12.3%", or "".
std::string change(double a, double b) {
  const json r = relative(a, b);
  return r.is_null() ? "" : format("%+.1f%%", 100.0 * r.get<double>());
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

// The settings that differ between the runs (a key one side lacks shows "-"), or why there are
// none to diff.
struct SettingsDiff {
  std::vector<std::array<std::string, 3>> rows;  // key, A, B
  std::string note;                              // when the runs cannot be diffed
};
SettingsDiff settings_diff(const json& a, const json& b) {
  const auto sa = recorded_settings(a), sb = recorded_settings(b);
  SettingsDiff d;
  if (sa.empty() && sb.empty()) {
    d.note = "neither summary records them (written before echo-des recorded its jobs)";
    return d;
  }
  if (sa.empty() || sb.empty()) {
    d.note = "only " + std::string(sa.empty() ? "B" : "A") + "'s summary records them";
    return d;
  }
  std::map<std::string, std::pair<std::string, std::string>> all;
  for (const auto& [k, v] : sa)
    all[k].first = v;
  for (const auto& [k, v] : sb)
    all[k].second = v;
  for (const auto& [k, v] : all)
    if (v.first != v.second)
      d.rows.push_back({k, v.first.empty() ? "-" : v.first, v.second.empty() ? "-" : v.second});
  return d;
}

std::string settings_text(const SettingsDiff& d) {
  if (!d.note.empty())
    return "settings: " + d.note + "\n\n";
  if (d.rows.empty())
    return "settings: the same\n\n";
  // Columns as wide as what they hold (a file name or an origin can be long).
  std::array<std::size_t, 3> width = {0, 1, 1};
  for (const auto& r : d.rows)
    for (std::size_t c = 0; c < 3; ++c)
      width[c] = std::max(width[c], r[c].size());
  std::string out = "settings that differ:\n";
  for (const auto& r : d.rows)
    out += "  " + r[0] + std::string(width[0] - r[0].size() + 2, ' ') + r[1] + std::string(width[1] - r[1].size() + 2, ' ') + r[2] + "\n";
  return out + "\n";
}

const json* training_of(const json& s) {
  return s.contains("training") && s["training"].is_object() ? &s["training"] : nullptr;
}

json pair(double a, double b) { return {{"a", a}, {"b", b}, {"change", relative(a, b)}}; }

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
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number past double
    throw UserError(file.string(), 0, std::string("not JSON: ") + e.what(), "give a summary.json written by echo-des");
  }
  if (!j.is_object() || !j.contains("iteration_time_s") || !j["iteration_time_s"].is_number() || !j.contains("ranks") ||
      !j["ranks"].is_array())
    throw UserError(file.string(), 0, "not an echo-des summary: it has no iteration_time_s and ranks",
                    "give a summary.json written by `echo-des run --out`");
  return j;
}

json compare_json(const json& a, const std::string& a_name, const json& b, const std::string& b_name, std::size_t max_collectives) {
  json out = {{"a", a_name}, {"b", b_name}};
  const SettingsDiff settings = settings_diff(a, b);
  json rows = json::array();
  for (const auto& r : settings.rows)
    rows.push_back({{"key", r[0]}, {"a", r[1]}, {"b", r[2]}});
  out["settings_differ"] = rows;
  if (!settings.note.empty())
    out["settings_note"] = settings.note;
  out["iteration_time_s"] = pair(a["iteration_time_s"].get<double>(), b["iteration_time_s"].get<double>());
  // Throughput, efficiency and memory of generated jobs.
  const json *ta = training_of(a), *tb = training_of(b);
  if (ta && tb) {
    json t;
    for (const char* key : {"tokens_per_s", "tflops_per_gpu", "mfu", "peak_memory_bytes"})
      t[key] = pair(ta->value(key, 0.0), tb->value(key, 0.0));
    out["training"] = t;
  } else if (ta || tb) {
    out["training_note"] = std::string("only ") + (ta ? "A" : "B") + " is a generated job";
  }
  const Means ma = means(a), mb = means(b);
  out["rank_mean"] = {{"compute_s", pair(ma.compute_s, mb.compute_s)},
                      {"exposed_comm_s", pair(ma.exposed_comm_s, mb.exposed_comm_s)},
                      {"idle_s", pair(ma.idle_s, mb.idle_s)}};
  out["workloads"] = {{"a", workload_name(a) + " on " + a["platform"].value("description", std::string())},
                      {"b", workload_name(b) + " on " + b["platform"].value("description", std::string())}};
  out["same_workload"] = workload_name(a) == workload_name(b) && a["ranks"].size() == b["ranks"].size();

  // Collectives present in both, by how much their time changed.
  const auto ca = collectives_of(a), cb = collectives_of(b);
  if (ca.empty() != cb.empty())
    out["collectives_note"] = std::string("only ") + (ca.empty() ? "B" : "A") + " has any";
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
  json collectives = json::array();
  for (std::size_t i = 0; i < diffs.size() && i < max_collectives; ++i) {
    const auto& [comm, op, bytes] = diffs[i].key;
    collectives.push_back({{"communicator", comm},
                           {"op", op},
                           {"bytes", bytes},
                           {"total_s", pair(diffs[i].ta, diffs[i].tb)},
                           {"algorithm", {{"a", diffs[i].alg_a}, {"b", diffs[i].alg_b}}}});
  }
  out["collectives"] = collectives;
  return out;
}

std::string compare_summaries(const json& a, const std::string& a_name, const json& b, const std::string& b_name,
                              std::size_t max_collectives) {
  const json c = compare_json(a, a_name, b, b_name, max_collectives);
  SettingsDiff settings;
  for (const json& r : c["settings_differ"])
    settings.rows.push_back({r["key"], r["a"], r["b"]});
  settings.note = c.value("settings_note", "");
  std::string out = settings_text(settings);
  out += format("%-22s %18s %18s %10s\n", "", "A", "B", "change");
  auto row = [&](const char* label, const json& p) {
    out += format("%-22s %15.6f ms %15.6f ms %10s\n", label, p["a"].get<double>() * 1e3, p["b"].get<double>() * 1e3,
                  change(p["a"], p["b"]).c_str());
  };
  row("iteration time", c["iteration_time_s"]);
  if (c.contains("training")) {
    auto figure = [&](const char* label, const char* key, double scale, const char* unit) {
      const double va = c["training"][key]["a"].get<double>() * scale, vb = c["training"][key]["b"].get<double>() * scale;
      out += format("%-22s %15.2f %-2s %15.2f %-2s %10s\n", label, va, unit, vb, unit, change(va, vb).c_str());
    };
    figure("tokens/s", "tokens_per_s", 1.0, "");
    figure("TFLOP/s per GPU", "tflops_per_gpu", 1.0, "");
    figure("MFU", "mfu", 100.0, "%");
    figure("peak memory", "peak_memory_bytes", 1.0 / (1024.0 * 1024 * 1024), "GiB");
  } else if (c.contains("training_note")) {
    out += "tokens/s, MFU, memory: " + c["training_note"].get<std::string>() + "\n";
  }
  row("compute (rank mean)", c["rank_mean"]["compute_s"]);
  row("exposed comm (mean)", c["rank_mean"]["exposed_comm_s"]);
  row("idle (rank mean)", c["rank_mean"]["idle_s"]);
  out += "\nA: " + a_name + "\n   " + c["workloads"]["a"].get<std::string>() + "\n";
  out += "B: " + b_name + "\n   " + c["workloads"]["b"].get<std::string>() + "\n";
  if (!c["same_workload"].get<bool>())
    out += "note: the two runs are of different workloads; only what both have is compared\n";
  if (c.contains("collectives_note"))
    out += "\ncollectives: " + c["collectives_note"].get<std::string>() + "\n";
  if (!c["collectives"].empty()) {
    out += "\nlargest collective differences (summed over their calls):\n";
    for (const json& d : c["collectives"]) {
      const double ta = d["total_s"]["a"], tb = d["total_s"]["b"];
      out += format("  %-12s %-15s %13llu B  %12.6f ms %-16s -> %12.6f ms %-16s %10s\n", d["communicator"].get<std::string>().c_str(),
                    d["op"].get<std::string>().c_str(), static_cast<unsigned long long>(d["bytes"].get<std::uint64_t>()), ta * 1e3,
                    d["algorithm"]["a"].get<std::string>().c_str(), tb * 1e3, d["algorithm"]["b"].get<std::string>().c_str(),
                    change(ta, tb).c_str());
    }
  }
  return out;
}

} // namespace echo::report
