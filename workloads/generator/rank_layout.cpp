#include "workloads/generator/rank_layout.hpp"

#include "base/user_error.hpp"

#include <algorithm>
#include <sstream>

namespace echo::workloads {

std::uint32_t Coordinates::data_parallel() const { return ep + ep_size * dp; }

RankLayout::RankLayout(const ParallelSpec& p, const std::string& origin) {
  sizes_ = {p.tp, p.cp, p.ep, p.dp / p.ep, p.pp};
  std::vector<Dim> order;
  std::stringstream ss(p.order);
  for (std::string word; std::getline(ss, word, '-');) {
    const char* names[] = {"tp", "cp", "ep", "dp", "pp"};
    const auto* it = std::find(std::begin(names), std::end(names), word);
    if (it == std::end(names) || std::find(order.begin(), order.end(), static_cast<Dim>(it - names)) != order.end())
      throw UserError(origin, 0, "parallel.order `" + p.order + "` has `" + word + "`, not a new one of tp, cp, ep, dp, pp",
                      "list each of tp, cp, ep, dp, pp once, innermost first, joined by '-' (Megatron's default: tp-cp-ep-dp-pp)");
    order.push_back(static_cast<Dim>(it - names));
  }
  if (std::find(order.begin(), order.end(), Dim::ep) == order.end()) {
    const auto dp = std::find(order.begin(), order.end(), Dim::dp);
    if (dp != order.end())
      order.insert(dp, Dim::ep);
  }
  // A dimension of size 1 may be left out: where it goes changes nothing.
  for (Dim d : {Dim::tp, Dim::cp, Dim::ep, Dim::dp, Dim::pp})
    if (size(d) == 1 && std::find(order.begin(), order.end(), d) == order.end())
      order.push_back(d);
  const auto ep = std::find(order.begin(), order.end(), Dim::ep);
  if (order.size() != 5 || ep + 1 == order.end() || *(ep + 1) != Dim::dp)
    throw UserError(origin, 0, "parallel.order `" + p.order + "` must name tp, cp, dp and pp once each (those of size 1 may be left out), with ep (if given) just before dp",
                    "expert parallelism is carved out of data parallelism; write e.g. tp-cp-ep-dp-pp");
  std::uint32_t stride = 1;
  for (Dim d : order) {
    strides_[static_cast<int>(d)] = stride;
    stride *= size(d);
  }
  world_ = stride;
}

std::uint32_t RankLayout::coordinate(std::uint32_t rank, Dim d) const {
  return rank / strides_[static_cast<int>(d)] % size(d);
}

Coordinates RankLayout::coordinates(std::uint32_t rank) const {
  Coordinates c;
  c.tp = coordinate(rank, Dim::tp);
  c.cp = coordinate(rank, Dim::cp);
  c.ep = coordinate(rank, Dim::ep);
  c.dp = coordinate(rank, Dim::dp);
  c.pp = coordinate(rank, Dim::pp);
  c.ep_size = size(Dim::ep);
  return c;
}

std::vector<ProcessGroup> RankLayout::groups(const std::string& slot, const std::vector<Dim>& varying) const {
  std::uint32_t members = 1;
  for (Dim d : varying)
    members *= size(d);
  std::vector<ProcessGroup> out;
  for (std::uint32_t rank = 0; rank < world_; ++rank) {
    bool base = true;  // the member with every varying coordinate 0 starts a group
    for (Dim d : varying)
      base = base && coordinate(rank, d) == 0;
    if (!base)
      continue;
    ProcessGroup g{slot, {}};
    g.ranks.reserve(members);
    for (std::uint32_t m = 0; m < members; ++m) {
      std::uint32_t r = rank, rest = m;
      for (Dim d : varying) {
        r += rest % size(d) * strides_[static_cast<int>(d)];
        rest /= size(d);
      }
      g.ranks.push_back(r);
    }
    out.push_back(std::move(g));
  }
  return out;
}

} // namespace echo::workloads
