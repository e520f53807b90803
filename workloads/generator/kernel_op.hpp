#pragma once
// KernelOp: one GPU kernel of a generated program, described by what decides its time — a GEMM's
// shape, an attention's shape, or the bytes a memory-bound kernel moves.
#include "proto/trace.pb.h"
#include "workloads/generator/attention_kernel.hpp"

#include <cstdint>
#include <string>

namespace echo::workloads {

enum class KernelShape { gemm, attention_forward, attention_backward, memory };

struct KernelOp {
  std::string name;
  trace::Category category = trace::OTHER;
  KernelShape shape = KernelShape::memory;
  // gemm: C[m x n] = A[m x k] B[k x n]; `batch` independent GEMMs (grouped expert GEMMs).
  // attention: batch = micro-batch x local heads, m = query length, n = key length, k = head dim.
  double m = 0, n = 0, k = 0, batch = 1;
  bool causal = true;      // attention
  double bytes = 0;        // memory: bytes read + written
  bool low_precision = true;  // gemm in the training dtype (false: kept in fp32, e.g. the router)
  bool fp8_capable = true;    // false: kept in 16 bits by an fp8 recipe (attention products, the LM head)
  AttentionKernel attention = AttentionKernel::flash;  // attention: the implementation
  double sms_held = 0;  // gemm: SMs a concurrent communication kernel keeps from it (userbuffers)
  // gemm: bytes per output element its epilogue moves: 2 writes C in 16 bits; a weight-gradient GEMM
  // that adds into the gradient buffer (gradient-accumulation fusion) reads and writes it: 8 in fp32.
  double epilogue_bytes = 2;
  // gemm: like kernels launched together on streams of their own (Transformer Engine's userbuffers
  // chunks, on up to 3 compute streams), whose blocks the GPU schedules as one pool of waves: this
  // kernel's time is its share of theirs.
  double side_by_side = 1;
  // What the summary's "GPU work" breakdown counts it as; empty: its category.
  std::string kind;
};

double kernel_flops(const KernelOp& op);
// The key a profiling database stores a measured time under: "gemm:8192x2304x768".
std::string kernel_key(const KernelOp& op);

} // namespace echo::workloads
