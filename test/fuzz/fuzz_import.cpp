// One importer's files, read and built into a workload as a job naming them would be. The format
// is chosen at build time (FUZZ_FORMAT): each format is its own target with its own corpus.
#include "fuzz_support.hpp"
#include "workloads/importers/importer.hpp"

#ifndef FUZZ_FORMAT
#error "build with -DFUZZ_FORMAT=<importer>"
#endif

namespace {

// Lays the input out as the files the format reads; returns what the job would name.
std::vector<std::string> lay_out(std::string_view format, std::string_view input) {
  using namespace echo::fuzz;
  if (format == "trace-text")
    return {write_file("trace.pbtxt", input)};
  if (format == "trace")
    return {write_file("trace.pb", input)};
  if (format == "kineto")
    return {write_file("rank0.json", input)};
  if (format == "chakra")
    return {write_file("job.0.et", input)};
  if (format == "tracer") {
    write_file("traced/host.1.trace.pb", input);
    return {(scratch() / "traced").string()};
  }
  // echo-tracer: a run's global graph, its ops profile and its config log.
  const auto files = parts(input, 3);
  const char* names[3] = {"pytorch_graph_profiling__m__global_graph_profiling_bs1_seq8_pytorch_ddp.json",
                          "pytorch_ops_profiling__m__global_ops_profiling_bs1_seq8_pytorch_ddp.json",
                          "logs__config_m_bs1_seq8_pytorch_ddp.json"};
  for (std::size_t i = 0; i < files.size(); ++i)
    write_file(std::string("run/") + names[i], files[i]);
  return {(scratch() / "run").string()};
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace echo;
  fuzz::clear_scratch();
  const std::string_view format = FUZZ_FORMAT;
  workloads::WorkloadSource source;
  source.format = format == "trace-text" ? "trace" : std::string(format);
  source.files = lay_out(format, std::string_view(reinterpret_cast<const char*>(data), size));
  return fuzz::expect_clean_outcome([&] { workloads::load_workload(source); });
}
