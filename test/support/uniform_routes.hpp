#pragma once
// A route oracle where every GPU pair has the same latency and bandwidth: the setting in which
// closed-form collective times are exact.
#include "platforms/route.hpp"

namespace echo::test {

class UniformRoutes final : public platforms::RouteOracle {
public:
  UniformRoutes(std::uint32_t gpus, double latency_s, double bandwidth_Bps)
      : gpus_(gpus), route_{latency_s, bandwidth_Bps, platforms::LinkKind::nvlink} {}
  platforms::Route route(std::uint32_t, std::uint32_t) const override { return route_; }
  std::uint32_t gpu_count() const override { return gpus_; }

private:
  std::uint32_t gpus_;
  platforms::Route route_;
};

} // namespace echo::test
