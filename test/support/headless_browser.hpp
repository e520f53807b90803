#pragma once
// The pages echo-des writes, as a browser renders them: Debian's chromium, headless. Tests that
// need it skip where it is not installed (CI installs it).
#include "support/cli_runner.hpp"
#include "support/temp_files.hpp"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace echo::test {

inline const char* const kChromium = "/usr/bin/chromium";

inline bool have_browser() { return std::filesystem::exists(kChromium); }

// Runs chromium headless on `page` with a profile in `dir`; `what` is its action
// ("--dump-dom", "--screenshot=FILE --window-size=W,H").
inline int run_browser(const TempDir& dir, const std::string& page, const std::string& what, const std::string& to = "/dev/null") {
  const std::string command = std::string("timeout 120 ") + kChromium + " --headless --no-sandbox --disable-gpu --user-data-dir='" +
                              (dir.path() / "browser-profile").string() + "' " + what + " 'file://" + page + "' > '" + to +
                              "' 2>/dev/null";
  return std::system(command.c_str());
}

// The page's DOM after its scripts ran; empty when the browser failed.
inline std::optional<std::string> rendered_dom(const TempDir& dir, const std::string& page) {
  const std::string out = (dir.path() / "rendered-dom.html").string();
  if (run_browser(dir, page, "--dump-dom", out) != 0)
    return std::nullopt;
  return slurp(out);
}

} // namespace echo::test
