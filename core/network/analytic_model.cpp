#include "core/network/analytic_model.hpp"

namespace echo::core::network {

namespace {

class AnalyticModel final : public NetworkModel {
public:
  // Only a schedule with steps reaches here (none do at this fidelity): alone on its links.
  std::optional<double> admit(NetworkCall&, std::uint32_t, double, double serialize_s) override { return serialize_s; }
};

} // namespace

std::unique_ptr<NetworkModel> make_analytic_model(const NetworkContext&) { return std::make_unique<AnalyticModel>(); }

} // namespace echo::core::network
