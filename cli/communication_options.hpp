#pragma once
// The communication settings a user can give on the command line, in the job file, or (for the
// algorithm and protocol lists) through NCCL's own environment variables. Precedence: command
// line, then job file, then NCCL_ALGO / NCCL_PROTO from the environment.
#include "collectives/nccl_version.hpp"
#include "core/job_spec.hpp"

#include <cstdint>
#include <string>

namespace echo::cli {

// A registered network model's name ("analytic", "steps", "flow", ...); throws UserError naming
// `origin` otherwise.
std::string parse_fidelity(const std::string& text, const std::string& origin, int line = 0);
// "2.18", "2.18.3" or "2.18.3-1", a release the model knows; throws UserError naming `origin`.
collectives::NcclVersion parse_nccl_version(const std::string& text, const std::string& origin, int line = 0);

// A channel (CTA) count for NCCL_MIN_CTAS / NCCL_MAX_CTAS: an integer in 1..64 (NCCL's
// MAXCHANNELS); throws UserError naming `origin` otherwise.
std::uint32_t parse_cta_count(const std::string& text, const std::string& origin);

// Fills the lists still empty from NCCL_ALGO / NCCL_PROTO, and the CTA bounds still unset from
// NCCL_MIN_CTAS / NCCL_MAX_CTAS.
void apply_nccl_environment(core::CommunicationSpec& spec);

} // namespace echo::cli
