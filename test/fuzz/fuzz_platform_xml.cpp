// A platform XML file. What echo-des checks itself (platforms/platform_precheck) runs in this
// process; a file that passes is then loaded into SimGrid and indexed in a child process (SimGrid
// keeps one engine per process), whose only allowed ends are success and a UserError.
#include "core/engine_setup.hpp"
#include "fuzz_support.hpp"
#include "platforms/cluster.hpp"
#include "platforms/platform_loader.hpp"
#include "platforms/platform_precheck.hpp"

#include <sys/wait.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace echo;
  fuzz::clear_scratch();
  const std::string path = fuzz::write_file("platform.xml", std::string_view(reinterpret_cast<const char*>(data), size));
  bool passed = false;
  fuzz::expect_clean_outcome([&] {
    platforms::precheck_platform_file(path);
    passed = true;
  });
  if (!passed)
    return 0;
  const pid_t child = fork();
  if (child == 0) {
    int code = 0;
    try {
      const auto engine = core::make_engine(0);
      platforms::PlatformSource source;
      source.file = path;
      platforms::load_platform(*engine, source);
      const platforms::Cluster cluster(*engine, source.describe());
    } catch (const UserError&) {
      code = 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "finding: internal error loading the platform: %s\n", e.what());
      code = 3;
    }
    _exit(code);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 2)) {
    std::fprintf(stderr, "finding: loading the platform ended with %s %d\n", WIFSIGNALED(status) ? "signal" : "exit code",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    std::abort();
  }
  return 0;
}
