#pragma once
// The progress line of a long run on a terminal: one line on stderr, rewritten in place, gone when
// the run ends. Nothing at all when stderr is not a terminal (logs, CI) or with --quiet.
#include "core/simulation.hpp"

#include <string>

namespace echo::cli {

class ProgressLine {
public:
  explicit ProgressLine(bool quiet);
  ~ProgressLine();  // clears the line if one was drawn
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // The callback to give the simulation; empty when nothing is to be shown.
  core::ProgressFn callback();

  // The text of one update, e.g. "simulated 12.500 ms, 45% of tasks, 3.1 M events/s, 4.0 s
  // elapsed, about 5 s left".
  static std::string text(const core::Progress& p);

private:
  bool enabled_;
  bool drawn_ = false;
};

} // namespace echo::cli
