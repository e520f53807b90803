#include "collectives/nccl_release_tuning.hpp"

namespace echo::collectives {

namespace {

// {base}, {{NVLink tree, ring}, {PCIe tree, ring}, {network tree, ring}}, ring LL share
constexpr NcclReleaseTuning kUpTo2_13 = {{{4.4, 4.4, 0.0}, {3.6, 10.0, 8.4}},
                                         {{{0.52, 1.25, 28}, {0.47, 1.9, 3.4}},
                                          {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}},
                                          {{5.0, 8.5, 28}, {2.7, 4.0, 28}}},
                                         true};
constexpr NcclReleaseTuning k2_14To2_17 = {{{4.4, 4.4, 0.0}, {3.6, 10.0, 8.4}},
                                           {{{0.52, 1.25, 28}, {0.47, 1.9, 3.4}},
                                            {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}},
                                            {{5.0, 8.5, 28}, {2.7, 4.0, 9.6}}},
                                           true};
constexpr NcclReleaseTuning k2_18 = {{{6.8, 14.0, 0.0}, {6.6, 14.0, 8.4}},
                                     {{{0.6, 1.25, 4}, {0.6, 1.9, 3.4}},
                                      {{1.0, 1.9, 6}, {1.0, 2.5, 5.7}},
                                      {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}}},
                                     true};
constexpr NcclReleaseTuning k2_19To2_20 = {{{6.8, 14.0, 0.0}, {6.6, 14.0, 8.4}},
                                           {{{0.6, 1.25, 28}, {0.6, 1.9, 3.4}},
                                            {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}},
                                            {{5.0, 8.5, 28}, {2.7, 4.0, 14.0}}},
                                           true};
constexpr NcclReleaseTuning k2_21To2_22 = {{{6.8, 14.0, 0.0}, {6.6, 14.0, 8.4}},
                                           {{{0.6, 1.25, 28}, {0.6, 1.9, 3.4}},
                                            {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}},
                                            {{5.0, 8.5, 28}, {2.7, 4.0, 14.0}}},
                                           false};
constexpr NcclReleaseTuning kFrom2_23 = {{{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}},
                                         {{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}},
                                          {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}},
                                          {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}}},
                                         false};

} // namespace

const NcclReleaseTuning& release_tuning(NcclVersion v) {
  if (v < NcclVersion{2, 14})
    return kUpTo2_13;
  if (v < NcclVersion{2, 18})
    return k2_14To2_17;
  if (v < NcclVersion{2, 19})
    return k2_18;
  if (v < NcclVersion{2, 21})
    return k2_19To2_20;
  if (v < NcclVersion{2, 23})
    return k2_21To2_22;
  return kFrom2_23;
}

} // namespace echo::collectives
