#pragma once
// The events of one PyTorch profiler (Kineto) trace that an import needs, read in one streaming
// pass (json_array_stream): memory grows with the events kept, not with the file.
//
// Every schema PyTorch wrote from 1.8 on is read alike: the capitalised categories of 1.8 / 1.9
// (Kernel, Runtime, Memcpy, Memset, Operator) and the later lower-case ones (kernel, cuda_runtime,
// gpu_memcpy, gpu_memset, cpu_op, user_annotation), ROCm traces (the same names) and MTIA ones
// (mtia_ccp_events, mtia_runtime); thread ids written as numbers or strings.
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace echo::workloads::kineto {

// A kernel, memcpy, memset or cuda_sync event.
struct GpuEvent {
  std::string name;
  std::int64_t stream = 0, start_ns = 0, dur_ns = 0, correlation = -1;
  std::string category;  // kernel, gpu_memcpy, gpu_memset, cuda_sync
  // NCCL args (PyTorch 2.2 and later)
  std::string collective, dtype, group_name, group_ranks;
  std::int64_t in_nelems = -1, out_nelems = -1, group_size = -1, peer_rank = -1, p2p_global = -1;
  // cuda_sync args
  std::int64_t wait_on_stream = -1, wait_on_record = -1, wait_on_event = -1;
};

// A CUDA runtime or driver call; the blocking ones are kept by kind.
enum class CallKind : std::uint8_t { other, device_sync, stream_sync, event_sync, memcpy_sync };
struct RuntimeCall {
  std::int64_t correlation = 0, thread = 0, start_ns = 0, end_ns = 0;
  CallKind kind = CallKind::other;
};

// A CPU-side range that describes a communication call: PyTorch's `nccl:<op>` annotation (its
// `Input Dims` / `Input type` are the tensors NCCL was given) and the `c10d::` op around it.
struct CommRange {
  std::string name;
  std::int64_t thread = 0, start_ns = 0, end_ns = 0;
  std::int64_t record_id = -1;  // the record function's id (a PyTorch Execution Trace node's rf_id)
  std::vector<std::int64_t> elements;  // per input tensor: the product of its dims
  std::vector<std::string> types;      // per input tensor
};

struct Step {
  std::string name;
  std::int64_t start_ns = 0, end_ns = 0, thread = 0;
};

// A CPU op's span on its thread.
struct OpSpan {
  std::int64_t thread = 0, start_ns = 0, end_ns = 0;
};

struct FileEvents {
  std::vector<GpuEvent> gpu;
  std::vector<GpuEvent> syncs;  // cuda_sync events
  std::vector<RuntimeCall> calls;
  std::vector<CommRange> comm_ranges;
  std::vector<Step> steps;
  std::unordered_map<std::int64_t, OpSpan> ops_by_record;  // record function id -> its op (kept on request)
  std::int64_t first_ns = -1, last_ns = -1;  // the span of every timed event
  // distributedInfo
  int rank = -1, world_size = -1;
  std::string backend;
  std::map<std::string, std::vector<std::uint32_t>> group_ranks;  // pg_config: process group name -> ranks
};

// `keep_ops`: also keep every CPU op's span by record function id (to link an Execution Trace).
FileEvents read_file(const std::string& path, double& bytes_parsed, bool keep_ops = false);

} // namespace echo::workloads::kineto
