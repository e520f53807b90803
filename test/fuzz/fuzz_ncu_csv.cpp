// An Nsight Compute CSV export (`ncu --csv --page raw`), as `echo-des import ... --ncu` reads it.
#include "fuzz_support.hpp"
#include "workloads/ncu_report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace echo;
  fuzz::clear_scratch();
  const std::string path = fuzz::write_file("report.csv", std::string_view(reinterpret_cast<const char*>(data), size));
  return fuzz::expect_clean_outcome([&] { workloads::read_ncu_csv(path); });
}
