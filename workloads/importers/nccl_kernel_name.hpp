#pragma once
// What an NCCL kernel's name says about the call that launched it. NCCL spells op, algorithm,
// protocol, reduction and element type in its kernel names:
//   ncclKernel_AllReduce_RING_LL_Sum_float(...)        (NCCL before 2.19)
//   ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)       (since)
//   ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(...)    (send, recv and all-to-all share it)
// Traces that lack PyTorch's process-group fields (PyTorch <= 2.1) still have these names.
#include "proto/trace.pb.h"

#include <optional>
#include <string>

namespace echo::workloads {

struct NcclKernelName {
  bool nccl = false;  // the name is an NCCL kernel's at all
  trace::CollectiveOp op = trace::OP_UNSPECIFIED;  // unspecified for SendRecv / Send / Recv
  bool point_to_point = false;                     // SendRecv, Send, Recv (all-to-all too)
  std::string algorithm, protocol;                 // RING, TREE, NVLS, ...; LL, LL128, SIMPLE; empty when not spelled
  std::string element_type;                        // as spelled (float, f32, int8_t, ...); empty when not spelled
};

NcclKernelName parse_nccl_kernel_name(const std::string& kernel);

// An element type as PyTorch (`dtype` arg: Float, BFloat16; `Input type`: float, c10::BFloat16)
// or NCCL's kernel names (float, f32, bf16, int8_t) spell it: the trace's type and its size in
// bytes. nullopt when the spelling is unknown — the caller says so rather than guess silently.
struct ElementType {
  trace::DataType type = trace::DTYPE_UNSPECIFIED;
  unsigned bytes = 0;
};
std::optional<ElementType> element_type(const std::string& spelling);

} // namespace echo::workloads
