#include "cli/sweep_space.hpp"

#include "base/user_error.hpp"
#include "cli/job_schema.hpp"
#include "cli/yaml_fields.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace echo::cli {

namespace {

constexpr std::size_t kMaxPoints = 1000000;

std::string canonical_key(const std::string& key) {
  for (const char* section : {"model.", "training.", "parallel.", "replicate."})
    if (key.rfind(section, 0) == 0)
      return "workload." + key;
  return key;
}

double range_number(const YAML::Node& node, const std::string& key, const std::string& file) {
  if (!node || !node.IsScalar())
    throw UserError(file, line_of(node), "a range needs `" + key + "` as a number",
                    "write e.g. {from: 1, to: 16, times: 2} or {from: 1, to: 4, step: 1}");
  const std::string text = node.Scalar();
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    throw UserError(file, line_of(node), "range `" + key + "` must be a number, got '" + text + "'",
                    "write e.g. {from: 1, to: 16, times: 2}");
  return v;
}

std::string number_text(double v) {
  if (v == std::floor(v) && std::abs(v) < 1e15)
    return std::to_string(static_cast<long long>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::vector<std::string> range_values(const YAML::Node& range, const std::string& key, const std::string& file) {
  for (const auto& kv : range) {
    const std::string k = kv.first.as<std::string>();
    if (k != "from" && k != "to" && k != "step" && k != "times")
      throw UserError(file, line_of(kv.first), "unknown key '" + k + "' in the range of `" + key + "`",
                      "a range has from, to and either step or times");
  }
  const double from = range_number(range["from"], "from", file), to = range_number(range["to"], "to", file);
  if (range["step"].IsDefined() == range["times"].IsDefined())
    throw UserError(file, line_of(range), "the range of `" + key + "` needs exactly one of `step` and `times`",
                    "step adds (1, 2, 3, ...), times multiplies (1, 2, 4, ...)");
  const bool additive = range["step"].IsDefined();
  const double by = range_number(additive ? range["step"] : range["times"], additive ? "step" : "times", file);
  if (additive ? by <= 0 : by <= 1)
    throw UserError(file, line_of(range), "the range of `" + key + "` would never end (" + (additive ? "step" : "times") +
                                              " " + number_text(by) + ")",
                    additive ? "use a step greater than 0" : "use times greater than 1");
  if (from > to || (!additive && from <= 0))
    throw UserError(file, line_of(range), "the range of `" + key + "` is empty (from " + number_text(from) + " to " + number_text(to) + ")",
                    "give from <= to (and from > 0 with times)");
  std::vector<std::string> out;
  for (double v = from; v <= to * (1 + 1e-12); v = additive ? v + by : v * by)
    out.push_back(number_text(v));
  return out;
}

void collect(const YAML::Node& node, const std::string& prefix, const std::string& file, std::vector<SweepAxis>& axes) {
  for (const auto& kv : node) {
    const std::string name = prefix.empty() ? kv.first.as<std::string>() : prefix + "." + kv.first.as<std::string>();
    const YAML::Node& value = kv.second;
    if (value.IsMap() && !value["from"]) {
      collect(value, name, file, axes);
      continue;
    }
    const std::string key = canonical_key(name);
    const std::vector<std::string> known = job_value_keys();
    if (std::find(known.begin(), known.end(), key) == known.end())
      throw UserError(file, line_of(kv.first), "'" + name + "' is not a key of the job file",
                      "the nearest valid key is '" + nearest_job_key(key) + "'");
    SweepAxis axis{key, {}};
    if (value.IsMap()) {
      axis.values = range_values(value, name, file);
    } else if (value.IsSequence()) {
      for (const auto& item : value) {
        if (!item.IsScalar())
          throw UserError(file, line_of(item), "the values of `" + name + "` must be single values", "write e.g. [1, 2, 4]");
        axis.values.push_back(item.Scalar());
      }
    } else if (value.IsScalar()) {
      axis.values.push_back(value.Scalar());
    }
    if (axis.values.empty())
      throw UserError(file, line_of(kv.first), "`" + name + "` has no values", "give a list such as [1, 2, 4] or a range");
    axes.push_back(std::move(axis));
  }
}

} // namespace

std::vector<SweepAxis> read_sweep_space(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw UserError(path, 0, "cannot read the sweep space", "check the path given to --space");
  } catch (const YAML::Exception& e) {
    throw UserError(path, e.mark.line >= 0 ? e.mark.line + 1 : 0, "malformed YAML: " + e.msg, "fix the syntax");
  }
  if (!root.IsMap() || root.size() == 0)
    throw UserError(path, 0, "the sweep space is empty", "list job keys and their values, e.g. `parallel.tp: [1, 2, 4, 8]`");
  check_key_shapes(root, path);
  std::vector<SweepAxis> axes;
  collect(root, "", path, axes);
  std::size_t points = 1;
  for (const SweepAxis& a : axes) {
    points *= a.values.size();
    if (points > kMaxPoints)
      throw UserError(path, 0, "the space has more than " + std::to_string(kMaxPoints) + " points",
                      "narrow the lists or ranges, or split the sweep");
  }
  return axes;
}

std::vector<SweepPoint> sweep_points(const std::vector<SweepAxis>& axes) {
  std::vector<SweepPoint> points{{}};
  for (const SweepAxis& axis : axes) {
    std::vector<SweepPoint> next;
    next.reserve(points.size() * axis.values.size());
    for (const SweepPoint& p : points)
      for (const std::string& v : axis.values) {
        SweepPoint q = p;
        q.emplace_back(axis.key, v);
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

std::string point_label(const SweepPoint& point) {
  std::string out;
  for (const auto& [key, value] : point) {
    const std::string shown = key.rfind("workload.", 0) == 0 ? key.substr(9) : key;
    out += (out.empty() ? "" : " ") + shown + "=" + value;
  }
  return out;
}

} // namespace echo::cli
