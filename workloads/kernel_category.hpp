#pragma once
// The category of a traced GPU kernel, guessed from its name (cuBLAS / CUTLASS / flash-attention /
// PyTorch's kernel naming), for the slowdown model's per-category table and the report.
#include "proto/trace.pb.h"

#include <optional>
#include <string>
#include <string_view>

namespace echo::workloads {

trace::Category kernel_category(std::string_view kernel_name);

// A kernel of a communication library (NCCL's where a trace gives no call for it, DeepEP,
// NVSHMEM, Transformer Engine's userbuffers, custom all-reduces): trace::COMMUNICATION, replayed at
// its traced duration and counted as communication (core/rank_runtime.hpp, TimeKind::comm).
bool is_communication_kernel(std::string_view kernel_name);

// The import note that says how many such kernels the trace's templates hold, if any.
std::optional<std::string> communication_kernels_note(const trace::Trace& t);

std::string lowercase(std::string_view s);

} // namespace echo::workloads
