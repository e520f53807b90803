#include "workloads/kernel_category.hpp"

#include <algorithm>
#include <cctype>

namespace echo::workloads {

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return out;
}

trace::Category kernel_category(std::string_view kernel_name) {
  const std::string n = lowercase(kernel_name);
  auto has = [&](const char* s) { return n.find(s) != std::string::npos; };
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
