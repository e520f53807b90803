// What an event costs in SimGrid itself as the number of actors grows (issue 20): N actors on one
// host, each sleeping random durations in a loop and touching a little of its stack, nothing else.
// The per-event cost grows with N although every actor does the same work: the engine's cost of a
// wake-up depends on how many actors sleep at once, which is echo-des's floor at scale.
//
//   echo-bench-simgrid-sleep ACTORS EVENTS
#include <simgrid/s4u.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace sg4 = simgrid::s4u;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s ACTORS EVENTS\n", argv[0]);
    return 2;
  }
  const int actors = std::atoi(argv[1]);
  const long events = std::atol(argv[2]);
  if (actors <= 0 || events <= 0) {
    std::fprintf(stderr, "ACTORS and EVENTS must be positive\n");
    return 2;
  }
  static char name[] = "bench", factory[] = "--cfg=contexts/factory:raw", quiet[] = "--log=root.thres:critical";
  static char* sg_argv[] = {name, factory, quiet, nullptr};
  int sg_argc = 3;
  sg4::Engine engine(&sg_argc, sg_argv);
  sg4::Engine::set_config("contexts/stack-size:64");  // as echo-des sets them at this scale
  sg4::Engine::set_config("contexts/guard-size:0");
  auto* zone = sg4::create_full_zone("zone");
  sg4::Host* host = zone->create_host("host", 1e9);
  zone->seal();
  const long per_actor = events / actors;
  long done = 0;
  for (int a = 0; a < actors; ++a)
    sg4::Actor::create("sleeper", host, [a, per_actor, &done] {
      std::mt19937 random(static_cast<unsigned>(a));
      std::uniform_real_distribution<double> duration(1e-6, 1e-3);
      volatile char frame[2048];  // a stack frame of about what a stream actor keeps live
      for (std::size_t k = 0; k < sizeof frame; k += 64)
        frame[k] = 0;
      for (long k = 0; k < per_actor; ++k) {
        sg4::this_actor::sleep_for(duration(random));
        frame[(k * 64) % sizeof frame] = 1;
        ++done;
      }
    });
  const auto start = std::chrono::steady_clock::now();
  engine.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%6d actors: %ld events in %.2f s, %.0f ns per event\n", actors, done, wall, 1e9 * wall / static_cast<double>(done));
  return 0;
}
