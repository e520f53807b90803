#pragma once
// The two CUPTI calls the NCCL interposer needs. They do nothing until the CUDA driver has loaded
// the tracer through CUDA_INJECTION64_PATH (so a program traced for NCCL calls only, or one that
// never initialises CUDA, is left alone).
#include <cstdint>

namespace echo::workloads::tracer {

void push_external_correlation(std::uint64_t id);
void pop_external_correlation();

} // namespace echo::workloads::tracer
