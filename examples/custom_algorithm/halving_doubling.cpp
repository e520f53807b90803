#include "halving_doubling.hpp"

#include <algorithm>
#include <bit>

namespace example {

using namespace echo::collectives;

namespace {

// Round r of 2L: its partner distance and the bytes each member sends.
struct Round {
  std::uint32_t distance;
  std::uint64_t bytes;
};

std::vector<Round> rounds_of(std::uint32_t n, std::uint64_t bytes) {
  const auto levels = static_cast<std::uint32_t>(std::countr_zero(n));
  std::vector<Round> rounds;
  for (std::uint32_t k = 0; k < levels; ++k)  // reduce-scatter: far partners first, halves shrink
    rounds.push_back({n >> (k + 1), bytes >> (k + 1)});
  for (std::uint32_t k = levels; k-- > 0;)  // all-gather: the same partners backwards, halves grow
    rounds.push_back({n >> (k + 1), bytes >> (k + 1)});
  return rounds;
}

double step_cost(const PlannedCall& p, std::uint32_t a, std::uint32_t b, std::uint64_t bytes, double* latency) {
  const echo::platforms::LinkKind kind = p.hop_kind(a, b);
  *latency = p.costs.hop(kind);
  return static_cast<double>(bytes) / p.costs.link_Bps[static_cast<int>(kind)];
}

} // namespace

std::string HalvingDoubling::unsupported(const CollectiveCall& call, const CommShape&) const {
  if (call.op != Op::all_reduce)
    return "HalvingDoubling runs AllReduce only";
  if (!std::has_single_bit(call.gpus.size()))
    return "HalvingDoubling needs a power-of-two number of ranks (this call has " + std::to_string(call.gpus.size()) + ")";
  return {};
}

Schedule HalvingDoubling::build(const PlannedCall& p) const {
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  Schedule s(n);
  s.set_base_latency(p.costs.base_s);
  const auto rounds = rounds_of(n, p.call.bytes);
  // Step of member m in round r has index r * n + m.
  for (std::uint32_t r = 0; r < rounds.size(); ++r)
    for (std::uint32_t m = 0; m < n; ++m) {
      const std::uint32_t partner = m ^ rounds[r].distance;
      double latency = 0.0;
      const double serialize = step_cost(p, m, partner, rounds[r].bytes, &latency);
      const bool reduce = r < rounds.size() / 2;
      if (r == 0) {
        s.add_step(m, partner, rounds[r].bytes, serialize, latency, {}, reduce);
      } else {
        // What m sends now includes what its previous partner sent it last round.
        const std::uint32_t previous_partner = m ^ rounds[r - 1].distance;
        s.add_step(m, partner, rounds[r].bytes, serialize, latency,
                   {{(r - 1) * n + previous_partner, DepKind::data}, {(r - 1) * n + m, DepKind::order}}, reduce);
      }
    }
  s.finalize();
  return s;
}

std::optional<double> HalvingDoubling::closed_form_s(const PlannedCall& p) const {
  // Rounds are lock-step when the links are alike: each costs its slowest exchange.
  const auto n = static_cast<std::uint32_t>(p.call.gpus.size());
  double total = p.costs.base_s;
  for (const Round& round : rounds_of(n, p.call.bytes)) {
    double slowest = 0.0;
    for (std::uint32_t m = 0; m < n; ++m) {
      double latency = 0.0;
      const double serialize = step_cost(p, m, m ^ round.distance, round.bytes, &latency);
      slowest = std::max(slowest, serialize + latency);
    }
    total += slowest;
  }
  return total;
}

} // namespace example
