#pragma once
// nccl-tests' sweep of message sizes from its -b / -e / -f arguments: the text is the user's, so
// every way it can be wrong is a UserError naming the flag.
#include <cstdint>
#include <string>
#include <vector>

namespace echo::cli {

// "8", "128K", "8G" (powers of 1024); `flag` names the option in messages.
std::uint64_t parse_size(const std::string& text, const std::string& flag);
// Sizes from `min_text` to `max_text`, multiplied by `factor` between rows, never past the largest.
std::vector<std::uint64_t> nccl_tests_sizes(const std::string& min_text, const std::string& max_text, std::uint64_t factor);

} // namespace echo::cli
