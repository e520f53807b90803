#pragma once
// PyTorch profiler (Kineto) traces into a native trace: `echo-des import kineto FILE... -o trace.pb`.
// One file per rank (`.json` or `.json.gz`); the iteration is the GPU work launched inside
// `ProfilerStep#N` (the last step unless one is asked for).
//
// From each file, through the same records and conversion as the CUPTI tracer
// (workloads/tracer/process_trace): GPU kernels, memcpy and memset per stream with their measured
// durations; the launching threads' CPU time between launches (HOST tasks: it orders the GPU work
// but is not GPU time); NCCL kernels become collectives — op, element count, dtype and process
// group from the `Collective name`, `In msg nelems` / `Out msg nelems`, `dtype`,
// `Process Group Name` and `Process Group Ranks` args (their measured time kept for
// `comm: measured`); send / recv kernels become transfers to the peer in `Src Rank` / `Dst Rank`.
// Cross-stream order: Kineto's `cuda_sync` events, when the trace has them, give the waits
// exactly (stream waits on the record they name; event, stream and context synchronisations as
// host waits). Without them (or without their record ids) the waits PyTorch's ProcessGroupNCCL
// makes with CUDA events are inferred: a collective waits for the last kernel launched before it
// on every other stream; a kernel that started at most 20 us after a collective launched before
// it ended waits for that collective. Ranks the process groups name but no file covers run the
// first file's program; with `replicate: {dp: N}` the traced ranks are one data-parallel replica
// instead, grown to N (workloads/replicate.hpp: as_dp_replica, replicate_dp). `traceEvents` are
// streamed (json_array_stream): memory grows with the GPU events kept, not with the file.
#include "proto/trace.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace echo::workloads {

struct KinetoImport {
  trace::Trace trace;
  std::uint64_t kernels = 0, collectives = 0;
  std::vector<std::uint32_t> traced_ranks;  // the files' ranks; the others run the first file's program
  std::string step;  // "ProfilerStep#6"
  double bytes_parsed = 0;
};

// `step` < 0: the last ProfilerStep of each file.
KinetoImport read_kineto(const std::vector<std::string>& files, int step = -1);

// One file's GPU work of a step as measured, for overlap analysis (workloads/overlap_table.hpp):
// kernels, memcpy and memset launched inside the step, by start time; NCCL kernels marked, with
// their op and bytes as trace.proto counts them (AllGather: `Out msg nelems`, the others:
// `In msg nelems`, times the dtype's size).
struct MeasuredKernel {
  std::string name;
  std::int64_t stream = 0, start_ns = 0, duration_ns = 0;
  bool nccl = false;
  trace::CollectiveOp op = trace::OP_UNSPECIFIED;
  double bytes = 0;
};
struct KinetoKernels {
  std::string step;
  std::vector<MeasuredKernel> kernels;
};
KinetoKernels kineto_kernels(const std::string& file, int step = -1);

} // namespace echo::workloads
