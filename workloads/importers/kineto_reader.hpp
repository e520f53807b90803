#pragma once
// PyTorch profiler (Kineto) traces into a native trace: `echo-des import kineto FILE... -o trace.pb`.
// One file per rank (`.json` or `.json.gz`, any schema from PyTorch 1.8 on: kineto_events.hpp).
//
// The iteration: the GPU work launched inside `ProfilerStep#N` — the step asked for, else the step
// of median duration (a typical one); a trace without ProfilerStep replays its whole window, and a
// note says so. The reference a replay is compared with is that step's duration on the host, as
// users read it. The replay starts in the state the step started in: GPU work launched earlier and
// still running becomes CARRY_IN work ahead of the step's own on its stream, and the step's thread
// stays busy until the step ends (workloads/tracer/process_trace.hpp).
//
// From each file, through the same records and conversion as the CUPTI tracer: GPU kernels,
// memcpy and memset per stream with their measured durations; the launching threads' CPU time
// between launches (HOST tasks); NCCL kernels become collectives and send / recv transfers, with
// their process groups from PyTorch's fields or, in older traces, inferred (kineto_collectives.hpp).
// Waits: Kineto's `cuda_sync` events, when the trace has them, give them exactly (stream waits on
// the record they name; event, stream and context synchronisations as host waits). Without them
// the waits PyTorch's ProcessGroupNCCL makes with CUDA events are inferred (a collective waits for
// the last kernel launched before it on every other stream; a kernel that started at most 20 us
// after a collective launched before it ended waits for that collective), and so are blocking
// calls (synchronous copies, cudaDeviceSynchronize, stream and event synchronisations): the host
// resumes when the GPU work they waited for is done. Ranks the world holds but no file covers run
// the first file's program; with `replicate: {dp: N}` the traced ranks are one data-parallel
// replica instead, grown to N (workloads/replicate.hpp). What was inferred or assumed is in the
// trace's import_notes, shown with every run.
#include "proto/trace.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace echo::workloads {

struct KinetoImport {
  trace::Trace trace;
  std::uint64_t kernels = 0, collectives = 0;
  std::vector<std::uint32_t> traced_ranks;  // the files' ranks; the others run the first file's program
  std::string step;  // "ProfilerStep#6", or "the whole trace"
  double bytes_parsed = 0;
  std::vector<std::string> notes;  // as in trace.import_notes
};

// `step` < 0: the median-duration ProfilerStep of the first file, the same step in the others.
// `execution_traces`: the PyTorch Execution Traces of the same step, one per file in the same
// order (execution_trace.hpp), or none.
KinetoImport read_kineto(const std::vector<std::string>& files, int step = -1, const std::vector<std::string>& execution_traces = {});

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
