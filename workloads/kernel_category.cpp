#include "workloads/kernel_category.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iterator>

namespace echo::workloads {

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return out;
}

namespace {

// Kernels that move data between GPUs themselves: NCCL's (where a trace gives no call for
// them), DeepEP's expert dispatch and combine (`deep_ep::`, DeepSeek's own build `dpsk::ep::`),
// NVSHMEM's, Transformer Engine's userbuffers (TP communication overlap), MSCCL++, vLLM's and
// TensorRT-LLM's custom all-reduces, PyTorch's symmetric-memory collectives.
constexpr std::string_view kCommunicationLibraries[] = {
    "deep_ep::", "dpsk::ep::", "nvshmem", "userbuffers", "mscclpp", "cross_device_reduce", "allreduce",
    "all_reduce_kernel", "multimem_all", "all_gather_kernel", "reduce_scatter_kernel"};

} // namespace

bool is_communication_kernel(std::string_view kernel_name) {
  const std::string n = lowercase(kernel_name);
  return n.rfind("nccl", 0) == 0 || std::any_of(std::begin(kCommunicationLibraries), std::end(kCommunicationLibraries),
                                                [&](std::string_view lib) { return n.find(lib) != std::string::npos; });
}

trace::Category kernel_category(std::string_view kernel_name) {
  const std::string n = lowercase(kernel_name);
  auto has = [&](const char* s) { return n.find(s) != std::string::npos; };
  if (is_communication_kernel(kernel_name))
    return trace::COMMUNICATION;
  if (has("gemm") || has("cutlass") || has("matmul"))
    return trace::GEMM;
  if (has("flash") || has("fmha") || has("attention"))
    return trace::ATTENTION;
  if (has("norm"))
    return trace::NORMALIZATION;
  if (has("adam") || has("multi_tensor") || has("optimizer"))
    return trace::OPTIMIZER;
  if (has("reduce") || has("softmax"))
    return trace::REDUCTION;
  if (has("elementwise") || has("vectorized"))
    return trace::ELEMENTWISE;
  return trace::OTHER;
}

} // namespace echo::workloads

namespace echo::workloads {

std::optional<std::string> communication_kernels_note(const trace::Trace& t) {
  std::uint64_t kernels = 0, ns = 0;
  std::string example;
  for (const trace::RankTemplate& tmpl : t.templates())
    for (const trace::Task& task : tmpl.tasks())
      if (task.has_compute() && task.category() == trace::COMMUNICATION) {
        ++kernels;
        ns += task.compute().duration_ns();
        if (example.empty())
          example = task.name().substr(0, task.name().find('('));  // the kernel's name, not its parameters
      }
  if (kernels == 0)
    return std::nullopt;
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.3f", static_cast<double>(ns) * 1e-6);
  return std::to_string(kernels) + " communication kernels that are no call of the trace (" + ms + " ms in all; e.g. " + example +
         ") are replayed at their traced durations and counted as communication (`comm_kernels`); the trace does "
         "not say what they move, so a network what-if leaves them as they are";
}

} // namespace echo::workloads
