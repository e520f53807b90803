#pragma once
// Reads a native trace (proto/trace.proto) into a Workload: binary protobuf, or text format when
// the file ends in .pbtxt / .txtpb / .textproto. Every inconsistency (unknown template, ranks not
// covered, a rank without the communicator its program uses, ...) is a UserError with the file
// and, for text traces, the line.
#include "workloads/workload.hpp"

#include <string>

namespace echo::workloads {

// `path` may also be a folder of the CUPTI tracer's per-process files (traced_job.hpp).
// `replicate_dp` > 0: the trace is one data-parallel replica, grown to that width
// (replicate.hpp) before it is checked.
Workload read_trace(const std::string& path, std::uint32_t replicate_dp = 0);

// The trace message itself, unchecked (for tools that edit a trace).
trace::Trace read_trace_message(const std::string& path);

// The same checks and indexing on a trace already in memory (importers, generators, tests).
// `path` is only used in messages.
Workload build_workload(const trace::Trace& trace, const std::string& path);

} // namespace echo::workloads
