#pragma once
// The SimGrid engine as echo-des configures it: our settings (raw contexts, small stacks, quiet
// logs), never the user's command line. One per process.
#include <simgrid/s4u/Engine.hpp>

#include <cstdint>
#include <memory>

namespace echo::core {

std::unique_ptr<simgrid::s4u::Engine> make_engine(std::uint32_t actors_hint);

} // namespace echo::core
