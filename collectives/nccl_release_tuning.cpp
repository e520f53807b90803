#include "collectives/nccl_release_tuning.hpp"

#include "collectives/nccl_constants.hpp"

namespace echo::collectives {

NcclReleaseTuning release_tuning(NcclVersion v) {
  using namespace nccl;
  constexpr int kTree = 0, kRing = 1, kLL = 0, kLL128 = 1, kSimple = 2;
  const std::size_t tree = index(NcclAlgo::tree), ring = index(NcclAlgo::ring);
  // The newest release's constants, which nccl_constants.hpp holds; older ones differ as below.
  NcclReleaseTuning t{};
  for (int p = 0; p < 3; ++p) {
    t.base_us[kTree][p] = kBaseLatency[tree][p];
    t.base_us[kRing][p] = kBaseLatency[ring][p];
    for (int hw = 0; hw < 3; ++hw) {
      t.hop_us[hw][kTree][p] = kHwLatency[hw][tree][p];
      t.hop_us[hw][kRing][p] = kHwLatency[hw][ring][p];
    }
  }
  t.ring_ll_quarter = v < NcclVersion{2, 21};
  t.device_latency_added = !(v < NcclVersion{2, 18});
  t.ring_all_reduce_2n_net_steps = v < NcclVersion{2, 23};
  t.tree_hop_at_one_per_node = !(v < NcclVersion{2, 23});
  if (v < NcclVersion{2, 23})
    t.base_us[kTree][kSimple] = 0.0;
  if (v < NcclVersion{2, 18}) {
    t.base_us[kTree][kLL] = t.base_us[kTree][kLL128] = 4.4;
    t.base_us[kRing][kLL] = 3.6;
    t.base_us[kRing][kLL128] = 10.0;
    t.hop_us[kNvlink][kTree][kLL] = 0.52;
    t.hop_us[kNvlink][kRing][kLL] = 0.47;
    t.hop_us[kNet][kRing][kSimple] = v < NcclVersion{2, 14} ? 28.0 : 9.6;
  }
  // Tree Simple hops: 28 us everywhere but in 2.18 (its last patch) and from 2.23.
  if (v < NcclVersion{2, 23} && !(v == NcclVersion{2, 18}))
    t.hop_us[kNvlink][kTree][kSimple] = t.hop_us[kPci][kTree][kSimple] = t.hop_us[kNet][kTree][kSimple] = 28.0;
  if (v == NcclVersion{2, 18})
    t.hop_us[kPci][kTree][kSimple] = 6.0;
  return t;
}

} // namespace echo::collectives
