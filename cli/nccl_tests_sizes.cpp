#include "cli/nccl_tests_sizes.hpp"

#include "base/user_error.hpp"

#include <cctype>
#include <exception>

namespace echo::cli {

std::uint64_t parse_size(const std::string& text, const std::string& flag) {
  std::size_t used = 0;
  std::uint64_t value = 0;
  try {
    value = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string suffix = text.substr(used);
  std::uint64_t scale = 1;
  if (suffix.size() == 1) {
    switch (std::toupper(static_cast<unsigned char>(suffix[0]))) {
    case 'K': scale = 1ull << 10; break;
    case 'M': scale = 1ull << 20; break;
    case 'G': scale = 1ull << 30; break;
    default: used = 0;
    }
  } else if (!suffix.empty()) {
    used = 0;
  }
  if (used == 0 || text.empty())
    throw UserError(flag + " " + text, 0, "not a size", "write bytes with an optional K, M or G suffix, e.g. 8, 128K, 8G");
  // Beyond 2^62 bytes the doubling sizes would overflow (and no GPU holds them).
  if (value > (std::uint64_t{1} << 62) / scale)
    throw UserError(flag + " " + text, 0, "the size is beyond 4 EiB", "give a size a GPU can hold, e.g. 8G");
  return value * scale;
}

std::vector<std::uint64_t> nccl_tests_sizes(const std::string& min_text, const std::string& max_text, std::uint64_t factor) {
  const std::uint64_t lo = parse_size(min_text, "-b"), hi = parse_size(max_text, "-e");
  if (factor < 2)
    throw UserError("-f " + std::to_string(factor), 0, "the step factor must be at least 2", "e.g. -f 2");
  if (lo == 0 || lo > hi)
    throw UserError("-b " + min_text + " -e " + max_text, 0, "the sizes must satisfy 0 < minbytes <= maxbytes", "e.g. -b 8 -e 8G");
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s = lo; s <= hi; s *= factor) {
    sizes.push_back(s);
    if (s > hi / factor)
      break;  // the next size would pass the largest (or overflow)
  }
  return sizes;
}

} // namespace echo::cli
