#include "cli/communication_options.hpp"

#include "base/user_error.hpp"
#include "core/network/network_model.hpp"

#include <charconv>
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

std::uint32_t parse_cta_count(const std::string& text, const std::string& origin) {
  std::uint32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v == 0 ||
      v > collectives::CtaLimits::kMaxChannels)
    throw UserError(origin, 0, "'" + text + "' is not a CTA (channel) count NCCL accepts",
                    "give an integer from 1 to " + std::to_string(collectives::CtaLimits::kMaxChannels) +
                        " (NCCL's MAXCHANNELS), e.g. 24");
  return v;
}

void apply_nccl_environment(core::CommunicationSpec& spec) {
  if (const char* min = std::getenv("NCCL_MIN_CTAS"); min != nullptr && spec.min_ctas == 0) {
    spec.min_ctas = parse_cta_count(min, core::CommunicationSpec::kMinCtasFromEnvironment);
    spec.min_ctas_origin = core::CommunicationSpec::kMinCtasFromEnvironment;
  }
  if (const char* max = std::getenv("NCCL_MAX_CTAS"); max != nullptr && spec.max_ctas == 0) {
    spec.max_ctas = parse_cta_count(max, core::CommunicationSpec::kMaxCtasFromEnvironment);
    spec.max_ctas_origin = core::CommunicationSpec::kMaxCtasFromEnvironment;
  }
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
