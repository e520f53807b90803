#include "core/network/network_model.hpp"

#include "base/user_error.hpp"
#include "core/network/analytic_model.hpp"
#include "core/network/flow_model.hpp"
#include "core/network/shared_steps_model.hpp"

#include <algorithm>

namespace echo::core::network {

NetworkModelRegistry::NetworkModelRegistry() {
  add({"analytic", "one closed-form event per collective", false, make_analytic_model});
  add({"steps", "the algorithm's steps, sharing links with concurrent calls", true, make_shared_steps_model, true});
  add({"flow", "steps as SimGrid flows on the routed links", true, make_flow_model, false, true});
}

NetworkModelRegistry& NetworkModelRegistry::global() {
  static NetworkModelRegistry registry;
  return registry;
}

void NetworkModelRegistry::add(NetworkModelInfo info) {
  auto it = std::find_if(models_.begin(), models_.end(), [&](const NetworkModelInfo& m) { return m.name == info.name; });
  if (it != models_.end())
    *it = std::move(info);
  else
    models_.push_back(std::move(info));
}

const NetworkModelInfo* NetworkModelRegistry::find(const std::string& name) const {
  auto it = std::find_if(models_.begin(), models_.end(), [&](const NetworkModelInfo& m) { return m.name == name; });
  return it == models_.end() ? nullptr : &*it;
}

const NetworkModelInfo& NetworkModelRegistry::require(const std::string& name, const std::string& origin, int line) const {
  if (const NetworkModelInfo* info = find(name))
    return *info;
  throw UserError(origin, line, "unknown fidelity '" + name + "'", "use " + describe_all());
}

std::vector<std::string> NetworkModelRegistry::names() const {
  std::vector<std::string> out;
  for (const NetworkModelInfo& m : models_)
    out.push_back(m.name);
  return out;
}

std::string NetworkModelRegistry::describe_all() const {
  std::string out;
  for (std::size_t i = 0; i < models_.size(); ++i) {
    if (i > 0)
      out += i + 1 == models_.size() ? " or " : ", ";
    out += "`" + models_[i].name + "` (" + models_[i].description + ")";
  }
  return out;
}

} // namespace echo::core::network
