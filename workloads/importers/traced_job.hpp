#pragma once
// The job a tracer run recorded: the per-process files the CUPTI tracer wrote
// (`<host>.<pid>.trace.pb`, workloads/tracer/) merged into one native trace.
//
// Each process becomes the global rank its launcher gave it (RANK, OMPI_COMM_WORLD_RANK, ...);
// without launcher ranks, its rank in the one communicator every process joined; failing both, the
// files' order (host, then pid). Every NCCL communicator becomes one communicator whose members
// are ordered by their NCCL rank; a communicator some member of which was not traced is the
// user's error (the message names it and the missing ranks).
#include "proto/trace.pb.h"

#include <string>
#include <vector>

namespace echo::workloads {

struct TracedProcessFile {
  std::string path;
  trace::Trace trace;
};

trace::Trace merge_process_traces(std::vector<TracedProcessFile> processes);

// The `*.trace.pb` files of a tracer output folder, read and merged.
trace::Trace read_traced_job(const std::string& dir);

} // namespace echo::workloads
