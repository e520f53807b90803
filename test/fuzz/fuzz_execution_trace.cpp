// A PyTorch Execution Trace (JSON), as the Kineto importer's `execution_traces` option reads it.
#include "fuzz_support.hpp"
#include "workloads/importers/execution_trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace echo;
  fuzz::clear_scratch();
  const std::string path = fuzz::write_file("et.json", std::string_view(reinterpret_cast<const char*>(data), size));
  return fuzz::expect_clean_outcome([&] { workloads::kineto::read_execution_trace(path); });
}
