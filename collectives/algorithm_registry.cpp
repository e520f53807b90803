#include "collectives/algorithm.hpp"

#include "base/user_error.hpp"
#include "collectives/pairwise_all_to_all.hpp"
#include "collectives/point_to_point.hpp"
#include "collectives/ring.hpp"

namespace echo::collectives {

AlgorithmRegistry AlgorithmRegistry::with_builtins() {
  AlgorithmRegistry r;
  r.add(std::make_unique<RingAlgorithm>());
  r.add(std::make_unique<PointToPoint>());
  r.add(std::make_unique<PairwiseAllToAll>());
  return r;
}

void AlgorithmRegistry::add(std::unique_ptr<Algorithm> algorithm) { algorithms_.push_back(std::move(algorithm)); }

const Algorithm* AlgorithmRegistry::find(const std::string& name) const {
  for (const auto& a : algorithms_)
    if (a->name() == name)
      return a.get();
  return nullptr;
}

const Algorithm& AlgorithmRegistry::choose(const CollectiveCall& call) const {
  for (auto it = algorithms_.rbegin(); it != algorithms_.rend(); ++it)
    if ((*it)->supports(call))
      return **it;
  throw UserError("", 0, "no collective algorithm can run " + std::string(to_string(call.op)) + " on " +
                             std::to_string(call.gpus.size()) + " ranks",
                  "this op is not modelled yet; registered algorithms: " + [this] {
                    std::string s;
                    for (const auto& n : names())
                      s += (s.empty() ? "" : ", ") + n;
                    return s;
                  }());
}

std::vector<std::string> AlgorithmRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& a : algorithms_)
    out.push_back(a->name());
  return out;
}

} // namespace echo::collectives
