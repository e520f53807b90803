#include "core/engine_setup.hpp"

#include "base/user_error.hpp"

#include <xbt/log.h>

#include <cstdlib>
#include <string>

namespace echo::core {

namespace sg4 = simgrid::s4u;

namespace {

std::string& chosen_factory() {
  static std::string factory;
  return factory;
}

std::string checked_factory(const std::string& factory, const std::string& origin) {
  if (factory != "raw" && factory != "thread" && factory != "ucontext" && factory != "boost")
    throw UserError(origin, 0, "unknown SimGrid context factory '" + factory + "'",
                    "use raw (the default), thread (for sanitizers), ucontext or boost");
  return factory;
}

// SimGrid's raw contexts are the fastest; sanitizers cannot follow their stack switches, so a run
// under ASan picks another: --cfg=contexts/factory:thread, or ECHO_DES_CONTEXT_FACTORY=thread.
std::string context_factory() {
  if (!chosen_factory().empty())
    return chosen_factory();
  const char* chosen = std::getenv("ECHO_DES_CONTEXT_FACTORY");
  if (chosen == nullptr || *chosen == '\0')
    return "raw";
  return checked_factory(chosen, std::string("ECHO_DES_CONTEXT_FACTORY=") + chosen);
}

} // namespace

// SimGrid reads its settings from argv; give it ours, never the user's command line. The context
// factory must be among them: SimGrid makes the factory while it builds the engine, so setting
// it afterwards (as this did until 2026-11-26) silently keeps the raw contexts — the sanitizer
// suite ran on stacks AddressSanitizer cannot follow.
std::unique_ptr<sg4::Engine> make_engine(std::uint32_t actors_hint) {
  static std::string factory_arg;
  factory_arg = "--cfg=contexts/factory:" + context_factory();
  static char name[] = "echo-des";
  static char quiet[] = "--log=root.thres:critical";  // read before the settings, which SimGrid logs
  static char* argv[4];
  argv[0] = name;
  argv[1] = quiet;
  argv[2] = factory_arg.data();
  argv[3] = nullptr;
  static int argc;
  argc = 3;
  auto engine = std::make_unique<sg4::Engine>(&argc, argv);
  // Quiet: our own messages say what went wrong, SimGrid's would repeat it in its own words.
  // The engine's deadlock report goes nowhere: CallMatcher names the stuck calls instead.
  xbt_log_control_set("root.thres:critical");
  xbt_log_control_set("ker_engine.app:file:/dev/null");
  // Tens of thousands of actors: small stacks, no guard pages (each one costs a memory map).
  sg4::Engine::set_config(actors_hint > 4096 ? "contexts/stack-size:64" : "contexts/stack-size:128");
  sg4::Engine::set_config("contexts/guard-size:0");
  // `flow` fidelity: links as the platform states them, no TCP corrections (CM02 has no latency
  // or bandwidth factors; no reverse ACK traffic). No congestion window cap either: CM02 bounds a
  // flow by TCP-gamma / (2 x latency), and a gamma of 0 there means no bound at all, a flow's own
  // rate cap included (min(rate, 0)); a window far beyond any link keeps the caps.
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/TCP-gamma:1e30");
  sg4::Engine::set_config("network/crosstraffic:0");
  return engine;
}

void apply_simgrid_option(const std::string& key_value) {
  const std::string prefix = "contexts/factory:";
  if (key_value.rfind(prefix, 0) != 0)
    throw UserError("--cfg=" + key_value, 0, "echo-des takes only SimGrid's context factory from the command line",
                    "write --cfg=contexts/factory:thread (raw, thread, ucontext or boost); the other settings are echo-des's own");
  chosen_factory() = checked_factory(key_value.substr(prefix.size()), "--cfg=" + key_value);
}

} // namespace echo::core
