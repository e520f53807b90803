#pragma once
// The NCCL call behind each NCCL kernel of a Kineto trace: op, element counts, element type and
// process group (its communicator slot and members).
//
// PyTorch 2.2 and later record them on the kernel (`Collective name`, `In msg nelems`, `dtype`,
// `Process Group Name` / `Ranks`). Older traces do not; there the call is inferred as a careful
// reader would:
// - op and tensors from the `nccl:<op>` annotation ProcessGroupNCCL wraps around the launch
//   (`Input Dims`, `Input type`), else the op and element type from the kernel's name (a SendRecv
//   kernel inside `nccl:all_to_all` is an all-to-all);
// - the process group from the stream: ProcessGroupNCCL gives each process group its own NCCL
//   stream, so the calls of one stream are one group's, matched across ranks by their order;
// - its size from the world (`distributedInfo.world_size`), unless a `c10d::` all-gather or
//   reduce-scatter on that stream shows a smaller one (output / input elements); a smaller group
//   is taken as the block of consecutive ranks holding this one, and the note says so.
// What could not be inferred, and what the replay assumes instead, is said in notes.
#include "workloads/importers/execution_trace.hpp"
#include "workloads/importers/kineto_events.hpp"
#include "workloads/importers/nccl_kernel_name.hpp"
#include "workloads/tracer/activity_log.hpp"

#include "proto/trace.pb.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace echo::workloads::kineto {

using PointToPoint = tracer::Transfer;  // one vocabulary with the tracer (activity_log.hpp)

struct CommCall {
  trace::CollectiveOp op = trace::OP_UNSPECIFIED;
  PointToPoint p2p = PointToPoint::none;
  std::int64_t in_nelems = -1, out_nelems = -1;  // -1: unknown
  ElementType dtype{trace::FLOAT32, 4};
  std::string slot;                  // communicator slot ("pg0", "nccl-stream-14")
  std::vector<std::uint32_t> ranks;  // members, by global rank
  std::int64_t peer_global = -1, peer_member = -1;  // send / recv
};

class CommResolver {
public:
  // `world`: the job's rank count as far as the files say (distributedInfo, else the files).
  // `et`: the PyTorch Execution Trace of the same step, when given (it says what Kineto does not).
  CommResolver(const std::string& path, const FileEvents& f, int rank, int world, const ExecutionTrace* et = nullptr);

  // The call behind an NCCL kernel; nullopt when not even its op can be told (it then stays a
  // kernel with its measured time, and a note says so).
  std::optional<CommCall> resolve(const GpuEvent& kernel);

  // What was inferred or assumed in this file, one line each.
  std::vector<std::string> notes() const;

private:
  const CommRange* enclosing(const std::map<std::int64_t, std::vector<const CommRange*>>& ranges, std::int64_t correlation) const;
  std::vector<std::uint32_t> inferred_group(std::int64_t stream);
  std::optional<CommCall> from_process_group_fields(const GpuEvent& kernel);
  std::optional<CommCall> inferred(const GpuEvent& kernel);
  // What the Execution Trace says of the op that launched `kernel`, if it says anything.
  std::optional<EtCollective> from_execution_trace(const GpuEvent& kernel) const;
  ElementType element_type_or_note(const std::string& spelling, const std::string& kernel);

  const std::string& path_;
  const FileEvents& f_;
  int rank_, world_;
  std::map<std::int64_t, const RuntimeCall*> call_of_correlation_;
  const ExecutionTrace* et_;
  std::map<std::int64_t, std::vector<const CommRange*>> annotations_, c10d_ops_, param_comms_;  // by thread, by start
  std::map<std::int64_t, std::int64_t> group_size_of_stream_;
  // For the notes.
  std::uint64_t inferred_ = 0, from_execution_trace_ = 0, from_kernel_name_ = 0, unknown_size_ = 0, unknown_op_ = 0, unknown_peer_ = 0;
  std::map<std::int64_t, std::vector<std::uint32_t>> streams_used_;
  std::map<std::string, std::uint64_t> unknown_types_;
};

} // namespace echo::workloads::kineto
