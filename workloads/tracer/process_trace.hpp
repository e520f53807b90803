#pragma once
// One traced process's records as a native trace: one rank template plus the process's
// communicator memberships (merge_process_traces in workloads/importers/traced_job.hpp joins the processes).
//
// - The window: the last cudaProfilerStart / Stop range if the program set one (a Kineto step), else
//   everything.
// - GPU work: every kernel, memcpy and memset per stream, in launch order, with its measured time.
//   Work launched before the window and still running when it opened is carried in (CARRY_IN), each
//   op up to its measured end and never gated: the state the window started in.
// - NCCL: a kernel launched by an NCCL call (CUPTI's external correlation) becomes that call — a
//   collective on the communicator's slot, or a send / recv; a group's kernel becomes its calls in
//   call order, the kernel's time shared by bytes. A call whose kernel was not recorded (no CUPTI)
//   is kept on a stream named after its cudaStream_t, in call order.
// - The host: per launching thread, the time from one launch call to the next; a host-side wait
//   (cudaStreamSynchronize, cudaEventSynchronize, cudaDeviceSynchronize) is a step of that thread
//   that needs the awaited GPU work, and the time after it counts from when that work ended (what
//   the call took besides stays host time). The thread that closes the window is busy until it
//   does. Launch orders between threads (ActivityLog::launch_orders) make a launch wait for
//   another thread's.
// - Cross-stream order, exactly as the program made it: cudaStreamWaitEvent makes the next work
//   launched on the waiting stream wait for the work launched on the recording stream before the
//   latest cudaEventRecord of that event (CUDA's rule; launch order is correlation order).
#include "workloads/tracer/activity_log.hpp"

#include "proto/trace.pb.h"

namespace echo::workloads::tracer {

struct ProcessTraceStats {
  std::uint64_t kernels = 0, nccl_calls = 0, nccl_calls_without_kernel = 0, nccl_kernels_without_call = 0;
  // How long the GPU was busy with the window's own work (the union of its activities, carried-in
  // work aside), wherever it ended: where the host ran ahead of its GPU (a lone profiled step)
  // this is longer than the window.
  std::uint64_t own_gpu_busy_ns = 0;
  // Activities launched before the window and still running when it opened (carried in).
  std::uint64_t carried_in = 0;
};

trace::Trace process_trace(const ActivityLog& log, ProcessTraceStats* stats = nullptr);

} // namespace echo::workloads::tracer
