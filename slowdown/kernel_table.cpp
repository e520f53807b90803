#include "slowdown/kernel_table.hpp"

#include "base/user_error.hpp"
#include "slowdown/features.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>

namespace echo::slowdown {

namespace {

// One CSV record (RFC 4180: fields may be quoted, quotes doubled inside). Reads more lines when
// a quoted field spans them; `line` counts them.
bool read_record(std::istream& in, std::vector<std::string>& fields, int& line) {
  fields.clear();
  std::string text;
  if (!std::getline(in, text))
    return false;
  ++line;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0;; ++i) {
    if (i == text.size()) {
      if (quoted) {  // the field goes on on the next line
        std::string more;
        if (!std::getline(in, more))
          break;
        ++line;
        field += '\n';
        text += '\n' + more;
        continue;
      }
      break;
    }
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(field);
  return true;
}

double number(const std::string& text, const std::string& path, int line, const std::string& column) {
  double v = 0.0;
  const char* first = text.data();
  while (first != text.data() + text.size() && *first == ' ')
    ++first;
  auto [end, ec] = std::from_chars(first, text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    throw UserError(path, line, "column '" + column + "' holds '" + text + "', not a number", "fix or remove the row");
  // nan is a missing value (a column a profile could not fill); infinity is no measurement.
  if (std::isinf(v))
    throw UserError(path, line, "column '" + column + "' holds '" + text + "', an infinite value", "fix or remove the row");
  return v;
}

} // namespace

std::vector<KernelRow> read_kernel_table(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw UserError(path, 0, "cannot read the kernel table", "give a CSV like ../shared/data/slowdown/a100-overlap-train.csv");
  int line = 0;
  std::vector<std::string> header, fields;
  if (!read_record(in, header, line))
    throw UserError(path, 0, "the kernel table is empty", "give a CSV with a header line");
  auto column = [&](const std::string& name) -> std::size_t {
    auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end())
      throw UserError(path, 1, "the kernel table has no column '" + name + "'",
                      "the table needs ground_truth, duration, overlap_ratio and the feature columns");
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t iso = column("ground_truth"), dur = column("duration"), ratio = column("overlap_ratio");
  std::vector<std::size_t> feature_cols;
  for (const auto& f : feature_names())
    feature_cols.push_back(column(f));
  // The overlapping collective's columns: all of them or none.
  std::size_t present = 0;
  for (const auto& f : collective_feature_names())
    present += std::find(header.begin(), header.end(), f) != header.end();
  if (present > 0)
    for (const auto& f : collective_feature_names())
      feature_cols.push_back(column(f));
  const auto& names = present > 0 ? extended_feature_names() : feature_names();
  const auto name_col = std::find(header.begin(), header.end(), "kShortName");

  std::vector<KernelRow> rows;
  while (read_record(in, fields, line)) {
    if (fields.size() == 1 && fields[0].empty())
      continue;
    if (fields.size() < header.size())
      throw UserError(path, line, "the row has " + std::to_string(fields.size()) + " fields, the header " +
                                      std::to_string(header.size()), "give every row all the columns");
    KernelRow r;
    if (name_col != header.end())
      r.name = fields[static_cast<std::size_t>(name_col - header.begin())];
    r.isolated_ns = number(fields[iso], path, line, "ground_truth");
    r.measured_ns = number(fields[dur], path, line, "duration");
    r.overlap_ratio = number(fields[ratio], path, line, "overlap_ratio");
    if (r.isolated_ns <= 0 || r.measured_ns <= 0)
      throw UserError(path, line, "a kernel duration must be positive (ground_truth " + fields[iso] + ", duration " +
                                      fields[dur] + ")", "remove the row or fix the measurement");
    if (r.overlap_ratio < 0 || r.overlap_ratio > 1)
      throw UserError(path, line, "overlap_ratio must be within [0, 1], got " + fields[ratio], "fix the row");
    for (std::size_t k = 0; k < feature_cols.size(); ++k)
      r.features.push_back(static_cast<float>(number(fields[feature_cols[k]], path, line, names[k])));
    rows.push_back(std::move(r));
  }
  return rows;
}

double measured_slowdown(const KernelRow& r) {
  if (r.overlap_ratio <= 0)
    return 0.0;
  return (r.measured_ns - r.isolated_ns) / (r.overlap_ratio * r.isolated_ns);
}

bool impossible_measurement(const KernelRow& r) {
  return r.overlap_ratio > 0 && r.measured_ns < (1 - r.overlap_ratio) * r.isolated_ns;
}

double predicted_ns(const KernelRow& r, double s) {
  return (1 - r.overlap_ratio) * r.isolated_ns + r.overlap_ratio * r.isolated_ns * (1 + s);
}

} // namespace echo::slowdown
