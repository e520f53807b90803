#include "cli/yaml_fields.hpp"

#include "base/user_error.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

namespace echo::cli {

namespace fs = std::filesystem;

namespace {
thread_local std::vector<std::pair<YAML::Node, std::size_t>> override_marks;
}

void mark_override(const YAML::Node& node, std::size_t index) {
  override_marks.emplace_back(node, index);
  if (node.IsMap())
    for (const auto& kv : node) {
      mark_override(kv.first, index);
      mark_override(kv.second, index);
    }
  else if (node.IsSequence())
    for (const auto& item : node)
      mark_override(item, index);
}

void clear_override_marks() { override_marks.clear(); }

int line_of(const YAML::Node& node) {
  // Newest first: a later --set of the same key replaced the earlier one's value.
  if (node.IsDefined())
    for (auto it = override_marks.rbegin(); it != override_marks.rend(); ++it)
      if (it->first.is(node))
        return -static_cast<int>(it->second) - 1;
  return node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
}

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items)
    s += (s.empty() ? "" : ", ") + i;
  return s;
}

namespace {
void check_key_shapes_under(const YAML::Node& node, const std::string& file, const std::string& path) {
  if (node.IsSequence()) {
    for (const YAML::Node& item : node)
      check_key_shapes_under(item, file, path);
    return;
  }
  if (!node.IsMap())
    return;
  std::map<std::string, int> seen;  // key -> line of its first writing
  for (const auto& kv : node) {
    if (!kv.first.IsScalar())
      throw UserError(file, line_of(kv.first),
                      "a key " + (path.empty() ? std::string() : "in `" + path + "` ") + (kv.first.IsSequence() ? "is a list" : kv.first.IsMap() ? "is a mapping" : "is empty") + ", not a name",
                      "write keys as plain words (`key: value`); `?` starts a complex key, which no setting uses");
    const std::string where = path.empty() ? kv.first.Scalar() : path + "." + kv.first.Scalar();
    if (auto [it, fresh] = seen.emplace(kv.first.Scalar(), line_of(kv.first)); !fresh)
      throw UserError(file, line_of(kv.first),
                      "`" + where + "` is written twice (first on line " + std::to_string(it->second) + ")",
                      "keep one of them: YAML keeps both and echo-des would have to guess which you meant");
    check_key_shapes_under(kv.second, file, where);
  }
}
} // namespace

void check_key_shapes(const YAML::Node& node, const std::string& file) { check_key_shapes_under(node, file, ""); }

void check_keys(const YAML::Node& map, const std::string& section, const std::vector<std::string>& allowed,
                const std::string& file) {
  const std::set<std::string> ok(allowed.begin(), allowed.end());
  for (const auto& kv : map) {
    const std::string key = kv.first.as<std::string>();
    if (!ok.count(key))
      throw UserError(file, line_of(kv.first),
                      "unknown key '" + key + "'" + (section.empty() ? "" : " in `" + section + "`"),
                      "allowed keys" + (section.empty() ? std::string() : " in `" + section + "`") + ": " + join(allowed));
  }
}

YAML::Node require_map(const YAML::Node& parent, const std::string& key, const std::string& file, bool required) {
  YAML::Node node = parent[key];
  if (!node || node.IsNull()) {
    if (required)
      throw UserError(file, line_of(parent), "the job has no `" + key + "` section",
                      key == "platform" ? "add e.g. `platform: {preset: dgx-a100, nodes: 1}`"
                                        : "add e.g. `workload: {trace: trace.pbtxt}`");
    return YAML::Node(YAML::NodeType::Map);
  }
  if (!node.IsMap())
    throw UserError(file, line_of(node), "`" + key + "` must be a mapping of keys to values",
                    "write it as `" + key + ": {key: value, ...}` or as an indented block");
  return node;
}

std::string scalar(const YAML::Node& node, const std::string& key, const std::string& file) {
  if (!node.IsScalar())
    throw UserError(file, line_of(node), "`" + key + "` must be a single value", "write `" + key + ": VALUE`");
  return node.Scalar();
}

std::string resolve(const std::string& path, const std::string& base_dir) {
  if (path.empty() || fs::path(path).is_absolute() || base_dir.empty())
    return path;
  return (fs::path(base_dir) / path).lexically_normal().string();
}

bool either(const YAML::Node& node, const std::string& key, const std::string& yes, const std::string& no,
            const std::string& file, const std::string& fix) {
  const std::string value = scalar(node, key, file);
  if (value != yes && value != no)
    throw UserError(file, line_of(node), "`" + key + "` must be " + yes + " or " + no + ", got '" + value + "'", fix);
  return value == yes;
}

double number(const YAML::Node& node, const std::string& key, const std::string& file) {
  const std::string text = scalar(node, key, file);
  double v = 0.0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    throw UserError(file, line_of(node), "`" + key + "` must be a number, got '" + text + "'", "write e.g. " + key + ": 0.2");
  if (v < 0.0)
    throw UserError(file, line_of(node), "`" + key + "` must not be negative, got " + text,
                    "give " + key + ": 0 or more (docs/generator.md and the README say what each figure means)");
  return v;
}

std::uint32_t whole_number(const YAML::Node& node, const std::string& key, const std::string& file, std::uint32_t minimum) {
  const std::string text = scalar(node, key, file);
  std::uint32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < minimum)
    throw UserError(file, line_of(node), "`" + key + "` must be a whole number of at least " + std::to_string(minimum) + ", got '" + text + "'",
                    "write e.g. " + key + ": " + std::to_string(std::max<std::uint32_t>(minimum, 1)));
  return v;
}

std::string one_of(const YAML::Node& node, const std::string& key, const std::vector<std::string>& words, const std::string& file) {
  const std::string value = scalar(node, key, file);
  for (const auto& w : words)
    if (w == value)
      return value;
  throw UserError(file, line_of(node), "`" + key + "` must be one of " + join(words) + ", got '" + value + "'",
                  "write e.g. " + key + ": " + words.front());
}

} // namespace echo::cli
