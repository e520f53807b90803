#pragma once
// The category of a traced GPU kernel, guessed from its name (cuBLAS / CUTLASS / flash-attention /
// PyTorch's kernel naming), for the slowdown model's per-category table and the report.
#include "proto/trace.pb.h"

#include <string>
#include <string_view>

namespace echo::workloads {

trace::Category kernel_category(std::string_view kernel_name);

std::string lowercase(std::string_view s);

} // namespace echo::workloads
