#include "sweep/sweep_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

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

// Round axis ticks: a step of 1, 2 or 5 times a power of ten, enough of them to pass `max`.
struct Ticks {
  double step = 1, top = 1;
  int count = 1;
};
Ticks ticks(double max) {
  Ticks t;
  if (!(max > 0))
    return t;
  const double raw = max / 5, magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * magnitude >= raw) {
      t.step = m * magnitude;
      break;
    }
  t.count = static_cast<int>(std::ceil(max / t.step - 1e-9));
  t.top = t.step * t.count;
  return t;
}

// A tick's label: no needless digits ("200000", "0.5", "12.5").
std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// Points coloured by the first swept setting whose value differs among the simulated points,
// each value its own colour (ordered as numbers when they all are); past ten values, grey.
struct Colouring {
  std::string key;
  std::map<std::size_t, std::string> of_record;
  std::vector<std::pair<std::string, std::string>> of_value;
};
Colouring colouring(const std::vector<SweepRecord>& records, const std::vector<std::size_t>& ok) {
  static const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#edc948",
                                         "#76b7b2", "#ff9da7", "#9c755f", "#e15759", "#17becf"};
  Colouring c;
  const auto value_of = [&](std::size_t i, const std::string& key) {
    const auto& point = records[i]["point"];
    if (!point.is_object() || !point.contains(key))
      return std::string();
    return point[key].is_string() ? point[key].get<std::string>() : point[key].dump();
  };
  std::vector<std::string> values;
  if (records[ok.front()].contains("point") && records[ok.front()]["point"].is_object())
    for (const auto& [key, unused] : records[ok.front()]["point"].items()) {
      std::vector<std::string> seen;
      for (std::size_t i : ok)
        if (std::string v = value_of(i, key); std::find(seen.begin(), seen.end(), v) == seen.end())
          seen.push_back(v);
      if (seen.size() > 1) {
        c.key = key;
        values = seen;
        break;
      }
    }
  const auto as_number = [](const std::string& v, double& out) {
    char* end = nullptr;
    out = std::strtod(v.c_str(), &end);
    return !v.empty() && end != nullptr && *end == '\0';
  };
  std::stable_sort(values.begin(), values.end(), [&](const std::string& a, const std::string& b) {
    double x = 0, y = 0;
    return as_number(a, x) && as_number(b, y) ? x < y : a < b;
  });
  for (std::size_t k = 0; k < values.size(); ++k)
    c.of_value.push_back({values[k], k < std::size(kPalette) ? kPalette[k] : "#bab0ac"});
  for (std::size_t i : ok) {
    std::string colour = kPalette[0];
    for (const auto& [value, col] : c.of_value)
      if (value == value_of(i, c.key))
        colour = col;
    c.of_record[i] = colour;
  }
  return c;
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
  constexpr double W = 900, H = 480, L = 90, B = 56, T = 20, R = 20;
  std::map<std::string, std::size_t> counts;
  std::vector<std::size_t> ok;
  for (std::size_t i = 0; i < records.size(); ++i) {
    ++counts[records[i].value("status", "failed")];
    if (simulated(records[i]))
      ok.push_back(i);
  }
  out << "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>echo-des sweep</title><style>"
         "body{font-family:sans-serif;margin:20px;color:#222}td,th{padding:2px 10px;text-align:left}"
         "circle{opacity:.8}circle.front{stroke:#000;stroke-width:2;opacity:1}"
         ".key span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle;border-radius:6px}"
         "</style></head><body>\n";
  out << "<h1>Sweep: throughput against memory</h1><p>" << records.size() << " points: " << counts["ok"] << " simulated, "
      << counts["invalid"] << " invalid, " << counts["does_not_fit"] << " do not fit in memory, " << counts["failed"]
      << " failed.</p>\n";
  if (ok.empty()) {
    // Nothing to draw: say so rather than show empty axes.
    out << "<p id=\"nothing\">No point of the space could be simulated: the reasons are in results.csv and on the "
           "command line. Widen the space or change the job.</p></body></html>\n";
    return;
  }
  const auto gib = [&](std::size_t i) { return records[i]["peak_memory_bytes"].get<double>() / (1 << 30); };
  const auto tps = [&](std::size_t i) { return records[i]["tokens_per_s"].get<double>(); };
  double max_mem = 0, max_tps = 0;
  for (std::size_t i : ok) {
    max_mem = std::max(max_mem, gib(i));
    max_tps = std::max(max_tps, tps(i));
  }
  const Ticks xt = ticks(max_mem), yt = ticks(max_tps);
  const auto x = [&](double v) { return L + v / xt.top * (W - L - R); };
  const auto y = [&](double v) { return H - B - v / yt.top * (H - B - T); };
  const std::vector<std::size_t> front = pareto_front(records);
  const Colouring colours = colouring(records, ok);

  if (!colours.key.empty()) {
    out << "<div class=\"key\" id=\"key\">colour: <b>" << escape(colours.key) << "</b>";
    for (const auto& [value, colour] : colours.of_value)
      out << "<span style=\"background:" << colour << "\"></span>" << escape(value);
    out << "</div>\n";
  }
  out << "<p>Ringed, joined by the red line: the Pareto front (no other point is both faster and lighter).</p>\n";
  out << "<svg id=\"plot\" width=\"" << W << "\" height=\"" << H << "\">";
  for (int k = 0; k <= xt.count; ++k) {
    const double v = xt.step * k, px = x(v);
    out << "<line x1=\"" << fixed(px, 1) << "\" y1=\"" << T << "\" x2=\"" << fixed(px, 1) << "\" y2=\"" << H - B + 4
        << "\" stroke=\"" << (k ? "#eee" : "#444") << "\"/><text class=\"xtick\" x=\"" << fixed(px, 1) << "\" y=\"" << H - B + 18
        << "\" font-size=\"11\" text-anchor=\"middle\">" << number(v) << "</text>";
  }
  for (int k = 0; k <= yt.count; ++k) {
    const double v = yt.step * k, py = y(v);
    out << "<line x1=\"" << L - 4 << "\" y1=\"" << fixed(py, 1) << "\" x2=\"" << W - R << "\" y2=\"" << fixed(py, 1)
        << "\" stroke=\"" << (k ? "#eee" : "#444") << "\"/><text class=\"ytick\" x=\"" << L - 6 << "\" y=\"" << fixed(py + 4, 1)
        << "\" font-size=\"11\" text-anchor=\"end\">" << number(v) << "</text>";
  }
  out << "<text class=\"axis\" x=\"" << (L + (W - L - R) / 2) << "\" y=\"" << H - 14
      << "\" text-anchor=\"middle\">peak memory per GPU (GiB)</text><text class=\"axis\" x=\"14\" y=\"" << (T + (H - B - T) / 2)
      << "\" text-anchor=\"middle\" transform=\"rotate(-90 14 " << (T + (H - B - T) / 2) << ")\">tokens/s</text>";
  std::string polyline;
  for (std::size_t i : front)
    polyline += fixed(x(gib(i)), 1) + "," + fixed(y(tps(i)), 1) + " ";
  out << "<polyline points=\"" << polyline << "\" fill=\"none\" stroke=\"#e15759\"/>";
  for (std::size_t i : ok) {
    const auto& r = records[i];
    const bool on_front = std::find(front.begin(), front.end(), i) != front.end();
    out << "<circle" << (on_front ? " class=\"front\"" : "") << " fill=\"" << colours.of_record.at(i) << "\" cx=\"" << fixed(x(gib(i)), 1)
        << "\" cy=\"" << fixed(y(tps(i)), 1) << "\" r=\"5\"><title>" << escape(r["label"].get<std::string>()) << ": "
        << fixed(tps(i), 0) << " tokens/s, " << fixed(gib(i), 1) << " GiB, limited by " << escape(r.value("limit", ""))
        << "</title></circle>";
  }
  out << "</svg>\n<h2>Pareto front</h2><table id=\"front\"><tr><th>point</th><th>tokens/s</th><th>MFU</th><th>memory GiB</th><th>limited "
         "by</th></tr>\n";
  for (std::size_t i : front) {
    const auto& r = records[i];
    out << "<tr><td>" << escape(r["label"].get<std::string>()) << "</td><td>" << fixed(tps(i), 0) << "</td><td>"
        << fixed(100 * r.value("mfu", 0.0), 1) << "%</td><td>" << fixed(gib(i), 1) << "</td><td>" << escape(r.value("limit", ""))
        << "</td></tr>\n";
  }
  out << "</table></body></html>\n";
}

} // namespace echo::sweep
