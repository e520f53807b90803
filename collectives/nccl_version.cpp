#include "collectives/nccl_version.hpp"

#include <cctype>
#include <charconv>

namespace echo::collectives {

std::optional<NcclVersion> parse_nccl_version(const std::string& text) {
  NcclVersion v;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  auto number = [&](int& out) {
    if (p == end || std::isdigit(static_cast<unsigned char>(*p)) == 0)  // no sign, no blank
      return false;
    auto [next, ec] = std::from_chars(p, end, out);
    if (ec != std::errc() || next == p)
      return false;
    p = next;
    return true;
  };
  int patch = 0, build = 0;
  if (!number(v.major) || p == end || *p++ != '.' || !number(v.minor))
    return std::nullopt;
  if (p != end && (*p++ != '.' || !number(patch)))
    return std::nullopt;
  if (p != end && (*p++ != '-' || !number(build)))
    return std::nullopt;
  if (p != end || v < kOldestNccl || v > kNewestNccl)
    return std::nullopt;
  return v;
}

std::string known_nccl_versions() { return kOldestNccl.str() + " to " + kNewestNccl.str(); }

std::string missing_in(NcclAlgo algo, NcclVersion version) {
  NcclVersion since = kOldestNccl;
  switch (algo) {
  case NcclAlgo::nvls: since = {2, 17}; break;
  case NcclAlgo::nvls_tree: since = {2, 18}; break;
  case NcclAlgo::pat: since = {2, 23}; break;
  default: break;
  }
  if (version >= since)
    return {};
  return std::string(to_string(algo)) + " needs NCCL " + since.str() + " or newer (nccl_version is " + version.str() + ")";
}

} // namespace echo::collectives
