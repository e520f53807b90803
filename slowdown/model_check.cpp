#include "slowdown/model_check.hpp"

#include "base/user_error.hpp"

#include <nlohmann/json.hpp>

#include <fstream>

namespace echo::slowdown {

namespace {

using nlohmann::json;

[[noreturn]] void broken(const std::string& path, const std::string& what) {
  throw UserError(path, 0, "not an XGBoost model echo-des can use: " + what,
                  "give the model.json `echo-des slowdown train` wrote, unedited");
}

// XGBoost writes its counts as strings ("5") in learner_model_param and tree_param.
long long count_of(const std::string& path, const json& parent, const char* key) {
  const auto it = parent.find(key);
  if (it == parent.end())
    broken(path, std::string("no `") + key + "`");
  try {
    const long long v = it->is_string() ? std::stoll(it->get<std::string>()) : it->get<long long>();
    if (v < 0 || v > (1LL << 31))
      broken(path, std::string("`") + key + "` is out of range");
    return v;
  } catch (const std::exception&) {
    broken(path, std::string("`") + key + "` is not a count");
  }
}

const json& array_of(const std::string& path, const json& tree, const char* key, long long n, std::size_t t) {
  const auto it = tree.find(key);
  if (it == tree.end() || !it->is_array() || static_cast<long long>(it->size()) != n)
    broken(path, "tree " + std::to_string(t) + ": `" + key + "` must list " + std::to_string(n) + " entries");
  for (const json& v : *it)
    if (!v.is_number())
      broken(path, "tree " + std::to_string(t) + ": `" + key + "` holds a value that is not a number");
  return *it;
}

} // namespace

void check_model_structure(const std::string& path) {
  std::ifstream in(path);
  json model;
  try {
    model = json::parse(in);
  } catch (const json::exception& e) {
    broken(path, std::string("not JSON (") + e.what() + ")");
  }
  try {
    const json& learner = model.at("learner");
    const long long features = count_of(path, learner.at("learner_model_param"), "num_feature");
    const long long classes = std::max(1LL, count_of(path, learner.at("learner_model_param"), "num_class"));
    const json& booster = learner.at("gradient_booster").at("model");
    const json& trees = booster.at("trees");
    const json& info = booster.at("tree_info");
    if (!trees.is_array() || !info.is_array() || info.size() != trees.size())
      broken(path, "`tree_info` must name one group per tree");
    for (const json& group : info)
      if (!group.is_number_integer() || group.get<long long>() < 0 || group.get<long long>() >= classes)
        broken(path, "`tree_info` names a group the model does not have");
    for (std::size_t t = 0; t < trees.size(); ++t) {
      const json& tree = trees[t];
      const long long n = count_of(path, tree.at("tree_param"), "num_nodes");
      if (n < 1)
        broken(path, "tree " + std::to_string(t) + " has no node");
      const json& left = array_of(path, tree, "left_children", n, t);
      const json& right = array_of(path, tree, "right_children", n, t);
      const json& parents = array_of(path, tree, "parents", n, t);
      const json& splits = array_of(path, tree, "split_indices", n, t);
      array_of(path, tree, "split_conditions", n, t);
      array_of(path, tree, "base_weights", n, t);
      for (long long i = 0; i < n; ++i) {
        const auto node = static_cast<std::size_t>(i);
        for (const json* child : {&left[node], &right[node]}) {
          const long long c = child->get<long long>();
          if (c != -1 && (c <= i || c >= n))
            broken(path, "tree " + std::to_string(t) + ", node " + std::to_string(i) + ": a child out of range");
        }
        const long long p = parents[node].get<long long>();
        if (i == 0 ? p != 2147483647 && p != -1 : (p < 0 || p >= i))
          broken(path, "tree " + std::to_string(t) + ", node " + std::to_string(i) + ": its parent is out of range");
        const bool leaf = left[node].get<long long>() == -1;
        if (leaf != (right[node].get<long long>() == -1))
          broken(path, "tree " + std::to_string(t) + ", node " + std::to_string(i) + ": one child only");
        if (!leaf && (splits[node].get<long long>() < 0 || splits[node].get<long long>() >= features))
          broken(path, "tree " + std::to_string(t) + ", node " + std::to_string(i) + ": splits on a feature the model does not have");
      }
    }
  } catch (const json::exception& e) {
    broken(path, std::string("a part is missing or of the wrong kind (") + e.what() + ")");
  }
}

} // namespace echo::slowdown
