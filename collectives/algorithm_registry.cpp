#include "collectives/algorithm.hpp"

#include "collectives/hierarchical.hpp"
#include "collectives/nvls.hpp"
#include "collectives/pairwise_all_to_all.hpp"
#include "collectives/pat.hpp"
#include "collectives/point_to_point.hpp"
#include "collectives/ring.hpp"
#include "collectives/tree.hpp"

#include <algorithm>
#include <cctype>

namespace echo::collectives {

namespace {
bool same_name(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}
} // namespace

AlgorithmRegistry AlgorithmRegistry::with_builtins() {
  AlgorithmRegistry r;
  r.add(std::make_unique<RingAlgorithm>());
  r.add(std::make_unique<TreeAlgorithm>());
  r.add(std::make_unique<NvlsAlgorithm>(false));
  r.add(std::make_unique<NvlsAlgorithm>(true));
  r.add(std::make_unique<PatAlgorithm>());
  r.add(std::make_unique<HierarchicalAllReduce>());
  r.add(std::make_unique<PointToPoint>());
  r.add(std::make_unique<PairwiseAllToAll>());
  return r;
}

void AlgorithmRegistry::add(std::unique_ptr<Algorithm> algorithm) {
  const std::string name = algorithm->name();
  auto it = std::find_if(algorithms_.begin(), algorithms_.end(), [&](const auto& a) { return same_name(a->name(), name); });
  if (it != algorithms_.end())
    *it = std::move(algorithm);
  else
    algorithms_.push_back(std::move(algorithm));
}

const Algorithm* AlgorithmRegistry::find(const std::string& name) const {
  for (const auto& a : algorithms_)
    if (same_name(a->name(), name))
      return a.get();
  return nullptr;
}

std::vector<std::string> AlgorithmRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& a : algorithms_)
    out.push_back(a->name());
  return out;
}

} // namespace echo::collectives
