// A slowdown kernel table (CSV), as `echo-des slowdown train / eval` read it.
#include "fuzz_support.hpp"
#include "slowdown/kernel_table.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace echo;
  fuzz::clear_scratch();
  const std::string path = fuzz::write_file("kernels.csv", std::string_view(reinterpret_cast<const char*>(data), size));
  return fuzz::expect_clean_outcome([&] {
    for (const slowdown::KernelRow& row : slowdown::read_kernel_table(path))
      (void)slowdown::measured_slowdown(row);
  });
}
