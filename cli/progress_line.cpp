#include "cli/progress_line.hpp"

#include <cstdio>
#include <unistd.h>

namespace echo::cli {

ProgressLine::ProgressLine(bool quiet) : enabled_(!quiet && isatty(STDERR_FILENO) == 1) {}

ProgressLine::~ProgressLine() {
  if (drawn_)
    std::fputs("\r\033[K", stderr);
}

std::string ProgressLine::text(const core::Progress& p) {
  const double done = p.tasks_total > 0 ? static_cast<double>(p.tasks_done) / static_cast<double>(p.tasks_total) : 0.0;
  char buf[256];
  int n = std::snprintf(buf, sizeof buf, "simulated %.3f ms, %.0f%% of tasks, %.1f M events/s, %.1f s elapsed",
                        p.simulated_s * 1e3, 100.0 * done, p.wall_s > 0 ? static_cast<double>(p.events) / p.wall_s / 1e6 : 0.0,
                        p.wall_s);
  if (done > 0.0 && done < 1.0 && n > 0 && static_cast<std::size_t>(n) < sizeof buf)
    std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), ", about %.0f s left", p.wall_s * (1.0 - done) / done);
  return buf;
}

core::ProgressFn ProgressLine::callback() {
  if (!enabled_)
    return {};
  return [this](const core::Progress& p) {
    std::fprintf(stderr, "\r\033[K%s", text(p).c_str());
    std::fflush(stderr);
    drawn_ = true;
  };
}

} // namespace echo::cli
