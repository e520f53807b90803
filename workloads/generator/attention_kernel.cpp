#include "workloads/generator/attention_kernel.hpp"

#include <array>
#include <cmath>
#include <utility>

namespace echo::workloads {

namespace {

constexpr std::array<std::pair<AttentionKernel, const char*>, 6> kNames = {{{AttentionKernel::flash, "flash"},
                                                                             {AttentionKernel::cudnn, "cudnn"},
                                                                             {AttentionKernel::te, "te"},
                                                                             {AttentionKernel::te_flash, "te_flash"},
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

bool megatron_softmax_fused(double micro_batch, double local_heads, double keys, double element_bytes) {
  const auto whole = [](double v, double of) { return std::fmod(v, of) == 0.0; };
  return element_bytes == 2 && keys > 16 && keys <= 2048 && whole(keys, 4) &&
         whole(micro_batch * local_heads, keys <= 128 ? 8 : 4);
}

std::vector<std::string> attention_kernel_names() {
  std::vector<std::string> names;
  for (const auto& entry : kNames)
    names.emplace_back(entry.second);
  return names;
}

} // namespace echo::workloads
