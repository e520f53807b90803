#pragma once
// The SimGrid engine as echo-des configures it: our settings (raw contexts, small stacks, quiet
// logs), never the user's command line. One per process.
#include <simgrid/s4u/Engine.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace echo::core {

std::unique_ptr<simgrid::s4u::Engine> make_engine(std::uint32_t actors_hint);

// A SimGrid setting the user asked for (`--cfg=KEY:VALUE`, as SimGrid programs take it), applied
// to every engine made after. Only the context factory can be chosen (raw, the default; thread for
// sanitizer runs; ucontext; boost): the rest is echo-des's own. Throws UserError otherwise.
void apply_simgrid_option(const std::string& key_value);

} // namespace echo::core
