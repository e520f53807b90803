#include "workloads/generator/attention_kernel.hpp"

#include <array>
#include <utility>

namespace echo::workloads {

namespace {

constexpr std::array<std::pair<AttentionKernel, const char*>, 5> kNames = {{{AttentionKernel::flash, "flash"},
                                                                             {AttentionKernel::cudnn, "cudnn"},
                                                                             {AttentionKernel::te, "te"},
                                                                             {AttentionKernel::flash1, "flash1"},
                                                                             {AttentionKernel::unfused, "unfused"}}};

} // namespace

const char* attention_kernel_name(AttentionKernel k) {
  for (const auto& [kernel, name] : kNames)
    if (kernel == k)
      return name;
  return "?";
}

std::optional<AttentionKernel> parse_attention_kernel(const std::string& word) {
  for (const auto& [kernel, name] : kNames)
    if (word == name)
      return kernel;
  return std::nullopt;
}

std::vector<std::string> attention_kernel_names() {
  std::vector<std::string> names;
  for (const auto& entry : kNames)
    names.emplace_back(entry.second);
  return names;
}

} // namespace echo::workloads
