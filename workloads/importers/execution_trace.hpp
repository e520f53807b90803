#pragma once
// A PyTorch Execution Trace (ExecutionTraceObserver JSON, schema 1.0.x and 1.1.x) read for what a
// Kineto trace of the same step lacks: for each communication op, its process group, collective
// name and tensors. Linked with Kineto by record-function id (Kineto's `Record function id`, or
// `External id` in older traces, is the ET node's `rf_id`) — what Chakra's trace_link does, read
// here directly.
//
// The communication ops are `record_param_comms` nodes, whose inputs PyTorch writes as
// [(tensors,) seq, process group (name, desc) or id, rank, collective name, in / out split
// sizes, global rank start, global rank stride, group size], and the `c10d::` ops around them
// (their input shapes and types are the tensors handed to NCCL).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace echo::workloads::kineto {

struct EtCollective {
  std::string collective;              // as PyTorch names it: allreduce, _allgather_base, send, ...
  std::string group_name;              // empty when the trace does not say
  std::vector<std::uint32_t> ranks;    // the group's global ranks; empty when unknown
  std::int64_t elements = -1;          // of the first tensor input; -1 unknown
  std::string element_type;            // its type as the ET spells it ("float", "c10::BFloat16")
};

// An op that reads a tensor another host thread's op wrote (the autograd thread's backward ops
// reading what the forward ops on the main thread produced): by their rf_ids.
struct EtThreadDependency {
  std::int64_t producer = 0, consumer = 0;
};

struct ExecutionTrace {
  std::string schema;
  std::map<std::int64_t, EtCollective> by_record;  // rf_id -> what the op says
  std::vector<EtThreadDependency> across_threads;
  std::size_t nodes = 0;
};

ExecutionTrace read_execution_trace(const std::string& path);

} // namespace echo::workloads::kineto
