#include "sweep/sweep_report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace echo::sweep {

namespace {

bool simulated(const SweepRecord& r) { return r.value("status", "") == "ok" && r.contains("tokens_per_s"); }

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s)
    out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : c == '"' ? "&quot;" : std::string(1, c);
  return out;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

} // namespace

std::vector<std::size_t> pareto_front(const std::vector<SweepRecord>& records) {
  std::vector<std::size_t> ok;
  for (std::size_t i = 0; i < records.size(); ++i)
    if (simulated(records[i]))
      ok.push_back(i);
  std::stable_sort(ok.begin(), ok.end(), [&](std::size_t a, std::size_t b) {
    const double ma = records[a]["peak_memory_bytes"], mb = records[b]["peak_memory_bytes"];
    if (ma != mb)
      return ma < mb;
    return records[a]["tokens_per_s"].get<double>() > records[b]["tokens_per_s"].get<double>();
  });
  std::vector<std::size_t> front;
  double best = -1;
  for (std::size_t i : ok) {
    const double t = records[i]["tokens_per_s"];
    if (t > best) {
      front.push_back(i);
      best = t;
    }
  }
  return front;
}

void write_sweep_report(std::ostream& out, const std::vector<SweepRecord>& records) {
  constexpr double W = 900, H = 480, L = 80, B = 50, T = 20, R = 20;
  double max_mem = 1, max_tps = 1;
  std::map<std::string, std::size_t> counts;
  for (const auto& r : records) {
    ++counts[r.value("status", "failed")];
    if (simulated(r)) {
      max_mem = std::max(max_mem, r["peak_memory_bytes"].get<double>() / (1 << 30));
      max_tps = std::max(max_tps, r["tokens_per_s"].get<double>());
    }
  }
  const auto x = [&](double gib) { return L + gib / (max_mem * 1.05) * (W - L - R); };
  const auto y = [&](double tps) { return H - B - tps / (max_tps * 1.05) * (H - B - T); };
  const std::vector<std::size_t> front = pareto_front(records);

  out << "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>echo-des sweep</title><style>"
         "body{font-family:sans-serif;margin:20px;color:#222}td,th{padding:2px 10px;text-align:left}"
         "circle{fill:#4e79a7;opacity:.7}circle.front{fill:#e15759;opacity:1}</style></head><body>\n";
  out << "<h1>Sweep: throughput against memory</h1><p>" << records.size() << " points: " << counts["ok"] << " simulated, "
      << counts["invalid"] << " invalid, " << counts["does_not_fit"] << " do not fit in memory, " << counts["failed"]
      << " failed. Red: the Pareto front (no other point is both faster and lighter).</p>\n";
  out << "<svg id=\"plot\" width=\"" << W << "\" height=\"" << H << "\">";
  out << "<line x1=\"" << L << "\" y1=\"" << H - B << "\" x2=\"" << W - R << "\" y2=\"" << H - B << "\" stroke=\"#444\"/>";
  out << "<line x1=\"" << L << "\" y1=\"" << T << "\" x2=\"" << L << "\" y2=\"" << H - B << "\" stroke=\"#444\"/>";
  out << "<text x=\"" << (W / 2) << "\" y=\"" << H - 12 << "\">peak memory per GPU (GiB, up to " << fixed(max_mem, 1)
      << ")</text><text x=\"4\" y=\"14\">tokens/s (up to " << fixed(max_tps, 0) << ")</text>";
  std::string polyline;
  for (std::size_t i : front)
    polyline += fixed(x(records[i]["peak_memory_bytes"].get<double>() / (1 << 30)), 1) + "," +
                fixed(y(records[i]["tokens_per_s"].get<double>()), 1) + " ";
  out << "<polyline points=\"" << polyline << "\" fill=\"none\" stroke=\"#e15759\"/>";
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    if (!simulated(r))
      continue;
    const bool on_front = std::find(front.begin(), front.end(), i) != front.end();
    out << "<circle" << (on_front ? " class=\"front\"" : "") << " cx=\""
        << fixed(x(r["peak_memory_bytes"].get<double>() / (1 << 30)), 1) << "\" cy=\"" << fixed(y(r["tokens_per_s"].get<double>()), 1)
        << "\" r=\"4\"><title>" << escape(r["label"].get<std::string>()) << ": " << fixed(r["tokens_per_s"].get<double>(), 0)
        << " tokens/s, " << fixed(r["peak_memory_bytes"].get<double>() / (1 << 30), 1) << " GiB, limited by "
        << escape(r.value("limit", "")) << "</title></circle>";
  }
  out << "</svg>\n<h2>Pareto front</h2><table id=\"front\"><tr><th>point</th><th>tokens/s</th><th>MFU</th><th>memory GiB</th><th>limited "
         "by</th></tr>\n";
  for (std::size_t i : front) {
    const auto& r = records[i];
    out << "<tr><td>" << escape(r["label"].get<std::string>()) << "</td><td>" << fixed(r["tokens_per_s"].get<double>(), 0)
        << "</td><td>" << fixed(100 * r.value("mfu", 0.0), 1) << "%</td><td>"
        << fixed(r["peak_memory_bytes"].get<double>() / (1 << 30), 1) << "</td><td>" << escape(r.value("limit", ""))
        << "</td></tr>\n";
  }
  out << "</table></body></html>\n";
}

} // namespace echo::sweep
