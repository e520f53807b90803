#include "collectives/p2p_channel_spread.hpp"

#include <algorithm>
#include <bit>
#include <numeric>
#include <vector>

namespace echo::collectives {

namespace {

constexpr std::uint32_t kWorksPerBatch = 8;  // NCCL_MAX_DEV_WORK_P2P_PER_BATCH (2.21: 16 / 2)
constexpr std::uint32_t kScheduleGroup = 8;  // NCCL_P2P_SCHEDULE_GROUP_SIZE (2.29)

// The low log2(pow2) bits of v, reversed (NCCL's mirrorBits / reverseBits).
std::uint32_t mirror(std::uint32_t v, std::uint32_t pow2) {
  std::uint32_t out = 0;
  for (std::uint32_t b = 1, m = pow2 >> 1; b < pow2; b <<= 1, m >>= 1)
    if (v & b)
      out |= m;
  return out;
}

// NCCL's order of deltas between n groups: (x^2 + x) / 2 mod pow2Up(n), those >= n left out.
std::vector<std::uint32_t> quadratic_deltas(std::uint32_t n) {
  const std::uint32_t pow2 = std::bit_ceil(n);
  std::vector<std::uint32_t> deltas;
  std::uint32_t round = 0, delta = 0;
  do {
    if (delta < n)
      deltas.push_back(delta);
    ++round;
    delta = (delta + round) & (pow2 - 1);
  } while (round != pow2);
  return deltas;
}

// Parts carried by each channel, for one member's sends to other nodes.
class ChannelLoad {
public:
  explicit ChannelLoad(std::uint32_t channels) : parts_(channels, 0) {}
  void add(std::uint32_t channel) { ++parts_[channel % parts_.size()]; }
  double spread() const {
    const std::uint32_t total = std::accumulate(parts_.begin(), parts_.end(), 0u);
    const std::uint32_t busiest = *std::max_element(parts_.begin(), parts_.end());
    return busiest == 0 ? 0.0 : static_cast<double>(total) / busiest;
  }

private:
  std::vector<std::uint32_t> parts_;
};

} // namespace

double all_to_all_network_channels(const CommShape& shape, std::uint32_t parts_per_peer, std::uint32_t p2p_channels,
                                   NcclVersion version) {
  if (shape.nodes < 2 || p2p_channels == 0)
    return 0.0;
  const std::uint32_t P = p2p_channels, ppn = std::max(1u, shape.ppn), nodes = shape.nodes;
  const std::uint32_t parts = std::max(1u, parts_per_peer);
  double evenest = static_cast<double>(P);

  if (version < NcclVersion{2, 22}) {
    // base = node delta + local step / 8; channel = mirror(base) + part.
    for (std::uint32_t me = 0; me < ppn; ++me) {
      ChannelLoad load(P);
      for (std::uint32_t d = 1; d < nodes; ++d)
        for (std::uint32_t peer = 0; peer < ppn; ++peer) {
          const std::uint32_t base = d + ((peer + ppn - me) % ppn) / kWorksPerBatch;
          for (std::uint32_t part = 0; part < parts; ++part)
            load.add(mirror(base % P, P) + part);
        }
      evenest = std::min(evenest, load.spread());
    }
    return evenest;
  }

  // 2.22 on: rounds in schedule order, whole groups of GPUs at a time; the base counts rounds.
  const bool by_group = version >= NcclVersion{2, 29};
  std::uint32_t group = ppn;
  if (by_group) {
    group = kScheduleGroup;
    if (ppn % group != 0 || ppn < group)
      group = std::gcd(group, ppn);
  }
  const std::uint32_t groups_per_node = ppn / group, groups = nodes * groups_per_node;
  const std::uint32_t bases_per_group = (group + kWorksPerBatch - 1) / kWorksPerBatch;
  const std::vector<std::uint32_t> deltas = quadratic_deltas(groups);
  for (std::uint32_t mine = 0; mine < groups_per_node; ++mine) {
    ChannelLoad load(P);
    for (std::uint32_t j = 0; j < deltas.size(); ++j) {
      if ((mine + deltas[j]) % groups / groups_per_node == 0)
        continue;  // a group on my own node
      for (std::uint32_t s = 0; s < group; ++s) {
        const std::uint32_t base = j * bases_per_group + s / kWorksPerBatch;
        for (std::uint32_t part = 0; part < parts; ++part)
          load.add(version >= NcclVersion{2, 28} ? mirror(base % P, P) + part : base + mirror(part, P));
      }
    }
    evenest = std::min(evenest, load.spread());
  }
  return evenest;
}

} // namespace echo::collectives
