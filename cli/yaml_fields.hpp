#pragma once
// Reading job-file fields with messages that name the file, the line, what is wrong and the fix.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

namespace echo::cli {

// The node's line in its file (1-based; 0 when unknown). A node a --set override made has none:
// it gives -(N + 1) for override number N (see mark_override), which parse_job turns into the
// override's own name, so that a mistake in a --set is never blamed on the file.
int line_of(const YAML::Node& node);
// Marks `node` and everything under it as made by override number `index`, until
// clear_override_marks() (parse_job does both, on its own thread).
void mark_override(const YAML::Node& node, std::size_t index);
void clear_override_marks();
std::string join(const std::vector<std::string>& items);
// Every key anywhere under `node` must be a plain word, written once per mapping: yaml-cpp
// accepts a list or a mapping as a key (`? [a]`) and keeps both entries of a repeated key, and
// which value a file means would then be a guess.
void check_key_shapes(const YAML::Node& node, const std::string& file);
// Rejects keys of `map` that are not in `allowed`, naming the first unknown one.
void check_keys(const YAML::Node& map, const std::string& section, const std::vector<std::string>& allowed,
                const std::string& file);
// parent[key] as a mapping; an empty mapping when absent (a UserError when `required`).
YAML::Node require_map(const YAML::Node& parent, const std::string& key, const std::string& file, bool required);
std::string scalar(const YAML::Node& node, const std::string& key, const std::string& file);
// A relative path is relative to the job file's folder.
std::string resolve(const std::string& path, const std::string& base_dir);
// A key that takes one of two words: true for the first.
bool either(const YAML::Node& node, const std::string& key, const std::string& yes, const std::string& no,
            const std::string& file, const std::string& fix);
// A non-negative number.
double number(const YAML::Node& node, const std::string& key, const std::string& file);
// A whole number >= `minimum`.
std::uint32_t whole_number(const YAML::Node& node, const std::string& key, const std::string& file, std::uint32_t minimum);
// One of `words`; the message lists them.
std::string one_of(const YAML::Node& node, const std::string& key, const std::vector<std::string>& words, const std::string& file);

} // namespace echo::cli
