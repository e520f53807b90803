#include "cli/communication_options.hpp"

#include "base/user_error.hpp"
#include "core/network/network_model.hpp"

#include <cstdlib>

namespace echo::cli {

std::string parse_fidelity(const std::string& text, const std::string& origin, int line) {
  return core::network::NetworkModelRegistry::global().require(text, origin, line).name;
}

collectives::NcclVersion parse_nccl_version(const std::string& text, const std::string& origin, int line) {
  if (auto v = collectives::parse_nccl_version(text))
    return *v;
  throw UserError(origin, line, "unknown NCCL version '" + text + "'",
                  "give a release from " + collectives::known_nccl_versions() + ", e.g. 2.18 or 2.21.5 (newer ones "
                  "are not known to the model yet)");
}

void apply_nccl_environment(core::CommunicationSpec& spec) {
  if (const char* algo = std::getenv("NCCL_ALGO"); algo != nullptr && spec.algo.empty()) {
    spec.algo = algo;
    spec.algo_origin = core::CommunicationSpec::kAlgoFromEnvironment;
  }
  if (const char* proto = std::getenv("NCCL_PROTO"); proto != nullptr && spec.proto.empty()) {
    spec.proto = proto;
    spec.proto_origin = core::CommunicationSpec::kProtoFromEnvironment;
  }
}

} // namespace echo::cli
