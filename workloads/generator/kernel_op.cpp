#include "workloads/generator/kernel_op.hpp"

#include <cmath>
#include <cstdio>

namespace echo::workloads {

double kernel_flops(const KernelOp& op) {
  switch (op.shape) {
  case KernelShape::gemm: return 2.0 * op.m * op.n * op.k * op.batch;
  // Q K^T and P V: 2 GEMMs of 2 m n k each; a causal kernel skips the masked half.
  case KernelShape::attention_forward: return 4.0 * op.m * op.n * op.k * op.batch * (op.causal ? 0.5 : 1.0);
  // FlashAttention's backward recomputes Q K^T, then dV, dP, dQ, dK: 5 GEMMs against 2.
  case KernelShape::attention_backward: return 10.0 * op.m * op.n * op.k * op.batch * (op.causal ? 0.5 : 1.0);
  case KernelShape::memory: return 0.0;
  }
  return 0.0;
}

std::string kernel_key(const KernelOp& op) {
  auto dims = [](double a, double b, double c, double d) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.0fx%.0fx%.0fx%.0f", a, b, c, d);
    return std::string(buf);
  };
  switch (op.shape) {
  case KernelShape::gemm: return "gemm:" + dims(op.batch, op.m, op.n, op.k);
  case KernelShape::attention_forward: return "attention_forward:" + dims(op.batch, op.m, op.n, op.k);
  case KernelShape::attention_backward: return "attention_backward:" + dims(op.batch, op.m, op.n, op.k);
  case KernelShape::memory: {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s:%.0f", op.name.c_str(), op.bytes);
    return buf;
  }
  }
  return "";
}

} // namespace echo::workloads
