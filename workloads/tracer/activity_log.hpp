#pragma once
// What the CUPTI tracer collects in one process, as plain records with no CUDA type in them, so
// that turning them into a trace (process_trace.hpp) is an ordinary function tests can feed with
// synthetic records. Times are nanoseconds on CUPTI's clock; ids are CUPTI's.
#include "proto/trace.pb.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace echo::workloads::tracer {

enum class GpuActivityKind : std::uint8_t { kernel, memcpy, memset };

// A kernel, memcpy or memset as the GPU ran it.
struct GpuActivity {
  GpuActivityKind kind = GpuActivityKind::kernel;
  std::uint32_t name = 0;  // index into ActivityLog::names
  std::uint32_t stream = 0;
  std::uint32_t correlation = 0;  // of the runtime / driver call that launched it
  std::uint64_t start_ns = 0, end_ns = 0;
};

// A CUDA runtime or driver call (cudaLaunchKernel, cudaMemcpyAsync, cudaStreamSynchronize, ...).
struct ApiCall {
  std::uint32_t correlation = 0;
  std::uint32_t thread = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
};

// cudaEventRecord(event, stream): the event fires when the stream's work so far is done.
struct EventRecord {
  std::uint32_t correlation = 0;
  std::uint32_t event = 0;
  std::uint32_t stream = 0;
};

enum class SyncKind : std::uint8_t { stream_wait_event, event_synchronize, stream_synchronize, context_synchronize };

// A wait: a stream on an event (GPU side), or the calling thread on an event, a stream or the
// whole device (host side).
struct Synchronization {
  SyncKind kind = SyncKind::stream_wait_event;
  std::uint32_t correlation = 0;
  std::uint32_t stream = 0;  // the waiting stream (stream_wait_event) or the awaited one (stream_synchronize)
  std::uint32_t event = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
};

// CUPTI's link from a launch's correlation id to the NCCL call (or group) that made it.
struct ExternalCorrelation {
  std::uint32_t correlation = 0;
  std::uint64_t external = 0;
};

// What an NCCL call does, in the trace's own vocabulary (trace.proto): a collective op, or one side
// of a transfer. The tracer, the Kineto importer and the conversion to a trace all speak it.
enum class Transfer : std::uint8_t { none, send, recv };
struct NcclOp {
  trace::CollectiveOp collective = trace::ALL_REDUCE;  // OP_UNSPECIFIED for a send / recv
  Transfer transfer = Transfer::none;
  static constexpr NcclOp of(trace::CollectiveOp op) { return {op, Transfer::none}; }
  static constexpr NcclOp side(Transfer t) { return {trace::OP_UNSPECIFIED, t}; }
};

// One NCCL call. Calls inside ncclGroupStart / ncclGroupEnd share the group's `launch` id, because
// NCCL launches one kernel for the whole group; a call outside a group has a `launch` of its own.
struct NcclCall {
  NcclOp op;
  std::uint64_t launch = 0;  // matched with ExternalCorrelation::external
  std::uint64_t comm = 0;    // the ncclComm_t, matched with CommInit::comm
  std::uint64_t count = 0;   // elements, as passed (per rank for AllGather / ReduceScatter / AllToAll)
  std::uint8_t dtype_bytes = 4;
  std::uint8_t dtype = 1;    // echo.trace.DataType
  std::uint32_t peer = 0;    // send / recv
  std::uint32_t root = 0;    // broadcast / reduce
  std::uint64_t stream = 0;  // the cudaStream_t as passed, for calls whose kernel was not seen
  std::uint32_t thread = 0;
};

// A communicator this process joined: ncclCommInitRank* or ncclCommSplit.
struct CommInit {
  std::uint64_t comm = 0;
  std::string id;  // same in every member (see trace.proto's CommMembership)
  std::uint32_t rank = 0, size = 0;
};

// cudaProfilerStart / cudaProfilerStop: when the program brackets what it wants traced.
// The thread that closed it (the profiler step's thread, for a Kineto step), -1 when unknown: that
// thread's time up to the window's end is part of the iteration even after its last launch.
struct CaptureRange {
  std::uint64_t start_ns = 0, end_ns = 0;
  std::int64_t thread = -1;
};

// The launch with correlation `after` was made only once the launch `before`, on another host
// thread, had been: an order between host threads the records alone do not show (a PyTorch
// Execution Trace's data dependencies give it, e.g. the autograd thread's backward ops waiting for
// the forward ops whose tensors they read).
struct LaunchOrder {
  std::uint32_t before = 0, after = 0;
};

struct ActivityLog {
  std::vector<std::string> names;  // kernel names, interned
  std::unordered_map<std::string, std::uint32_t> name_index;
  std::vector<GpuActivity> gpu;
  std::vector<ApiCall> api;
  std::vector<EventRecord> event_records;
  std::vector<Synchronization> syncs;
  std::vector<ExternalCorrelation> external;
  std::vector<NcclCall> nccl;
  std::vector<CommInit> comms;
  std::vector<CaptureRange> captures;
  std::vector<LaunchOrder> launch_orders;
  std::uint64_t dropped_records = 0;  // CUPTI's count plus the tracer's own
  std::uint32_t pid = 0;
  std::int32_t launcher_rank = -1;
  std::string host;
};

// The index of `name` in log.names, added on first use.
inline std::uint32_t intern(ActivityLog& log, std::string_view name) {
  const auto [it, added] = log.name_index.emplace(std::string(name), static_cast<std::uint32_t>(log.names.size()));
  if (added)
    log.names.emplace_back(name);
  return it->second;
}

} // namespace echo::workloads::tracer
