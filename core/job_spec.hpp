#pragma once
// JobSpec: one simulation request, as `cli` parsed it from a job file (and --set overrides).
#include "platforms/platform_loader.hpp"

#include <cstdint>
#include <map>
#include <string>

namespace echo::core {

// How collectives are simulated (DESIGN.md, "Fidelity levels"):
//   analytic: one event per call, the closed-form time after the last member arrives;
//   steps:    the call's schedule, each step timed as its members and data get there, sharing
//             links with concurrent calls (sharers counted at the step's start);
//   flow:     the schedule's steps become SimGrid communications on the routed links, sized to
//             take their `steps` time alone, so SimGrid's flow model decides contention.
enum class Fidelity { analytic, steps, flow };

struct CommunicationSpec {
  Fidelity fidelity = Fidelity::steps;
  // NCCL_ALGO / NCCL_PROTO syntax; empty: everything NCCL would consider. `*_origin` names where
  // the list came from (job file line, command line, environment) for error messages.
  std::string algo, algo_origin;
  std::string proto, proto_origin;
};

// Compute slowdown under overlap (slowdown/predictor.hpp): the model and its parameters.
struct SlowdownSpec {
  std::string model = "none";                // none | constant | category | xgboost
  std::string file;                          // xgboost: the model (XGBoost JSON)
  double factor = 0.0;                       // constant
  std::map<std::string, double> categories;  // category: overrides of the defaults
};

struct JobSpec {
  std::string job_file;                 // for messages; may be empty
  platforms::PlatformSource platform;
  std::string trace;                    // workload: native trace (.pb or .pbtxt)
  std::uint32_t replicate_dp = 0;       // > 0: the trace is one DP replica, grown to this width
  // workload.comm: `simulated` (default) times collectives with the collective model; `measured`
  // keeps each collective's traced duration (measured_duration_ns), to check that the engine
  // composes a real run correctly.
  bool comm_measured = false;
  CommunicationSpec communication;
  SlowdownSpec slowdown;
  std::string out_dir;                  // where summary.json / timeline.json go; empty: nowhere
  bool timeline = true;                 // write timeline.json into out_dir
  bool force_out = false;               // write into out_dir even if it holds other files
};

} // namespace echo::core
