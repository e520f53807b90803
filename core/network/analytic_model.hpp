#pragma once
// `analytic`: every call is one barrier of its closed-form time after the last member arrives
// (its schedule has no steps to admit), so calls never see each other on the links.
#include "core/network/network_model.hpp"

namespace echo::core::network {

std::unique_ptr<NetworkModel> make_analytic_model(const NetworkContext& context);

} // namespace echo::core::network
