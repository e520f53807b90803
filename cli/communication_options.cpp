#include "cli/communication_options.hpp"

#include "base/user_error.hpp"

#include <cstdlib>

namespace echo::cli {

core::Fidelity parse_fidelity(const std::string& text, const std::string& origin, int line) {
  if (text == "analytic")
    return core::Fidelity::analytic;
  if (text == "steps")
    return core::Fidelity::steps;
  if (text == "flow")
    return core::Fidelity::flow;
  throw UserError(origin, line, "unknown fidelity '" + text + "'",
                  "use `analytic` (one closed-form event per collective), `steps` (the algorithm's steps) or "
                  "`flow` (steps as SimGrid flows on the routed links)");
}

void apply_nccl_environment(core::CommunicationSpec& spec) {
  if (const char* algo = std::getenv("NCCL_ALGO"); algo != nullptr && spec.algo.empty()) {
    spec.algo = algo;
    spec.algo_origin = "NCCL_ALGO in the environment";
  }
  if (const char* proto = std::getenv("NCCL_PROTO"); proto != nullptr && spec.proto.empty()) {
    spec.proto = proto;
    spec.proto_origin = "NCCL_PROTO in the environment";
  }
}

} // namespace echo::cli
