// `echo-des nccl-tests -b MIN -e MAX -f FACTOR`: the three arguments as text (parts of the input),
// the factor as CLI11 would have parsed it.
#include "cli/nccl_tests_sizes.hpp"
#include "fuzz_support.hpp"

#include <charconv>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace echo;
  const auto args = fuzz::parts(std::string_view(reinterpret_cast<const char*>(data), size), 3);
  if (args.size() < 3)
    return 0;
  std::uint64_t factor = 0;
  const auto [end, ec] = std::from_chars(args[2].data(), args[2].data() + args[2].size(), factor);
  if (ec != std::errc() || end != args[2].data() + args[2].size())
    return 0;  // CLI11 refuses it before echo-des sees it
  return fuzz::expect_clean_outcome([&] {
    const auto sizes = cli::nccl_tests_sizes(std::string(args[0]), std::string(args[1]), factor);
    if (sizes.size() > 64)
      std::abort();  // at least doubling from 1 byte to 2^62: never more than 63 rows
  });
}
