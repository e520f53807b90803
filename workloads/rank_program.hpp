#pragma once
// RankProgram: what one GPU does, compiled from a trace template. It is shared (flyweight) by
// every rank that runs the template, so it holds no per-rank state: a rank's progress is a
// counter per stream, and a cross-stream dependency is "stream s has finished `position` + 1
// tasks" — checkable in O(1) without touching per-task memory.
#include "proto/trace.pb.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace echo::workloads {

enum class TaskKind : std::uint8_t { compute, collective, send, recv };

struct StreamPosition {
  std::uint32_t stream;
  std::uint32_t position;  // index in that stream's order
};

inline constexpr std::uint32_t kNoMetrics = ~0u;

struct ProgramTask {
  TaskKind kind = TaskKind::compute;
  trace::Category category = trace::CATEGORY_UNSPECIFIED;
  trace::CollectiveOp op = trace::OP_UNSPECIFIED;  // collective
  trace::DataType dtype = trace::DTYPE_UNSPECIFIED;
  std::uint32_t stream = 0;
  std::uint32_t position = 0;     // index in its stream's order
  std::uint32_t slot = 0;         // communicator slot (collective, send, recv), index into Workload::slots
  std::uint32_t peer_or_root = 0; // send/recv: peer member index; collective: root member index
  std::uint64_t duration_ns = 0;  // compute; for communication, the measured time if traced
  std::uint64_t bytes = 0;
  std::uint32_t waits_begin = 0, waits_end = 0;  // cross-stream waits, range in RankProgram::waits
  bool observed = false;          // a task on another stream waits for this one
  bool eager = false;             // send: done once posted (trace.proto PeerTransfer.eager)
  bool fills_gpu = false;         // compute: holds every SM while it runs (trace.proto Compute.fills_gpu)
  bool reserved_sms = false;      // collective: on SMs set aside for it (trace.proto Collective.reserved_sms)
  std::uint32_t metrics = kNoMetrics;  // compute: index into RankProgram::metrics, if traced
  // Which call this is, in the order the host issues them (the template's), as NCCL matches them:
  // a collective's index among the template's collectives on its slot; a send's among its sends to
  // the same peer on the slot, a recv's among its recvs from it. Not the order the streams reach
  // them: one communicator used from two streams is still matched in issue order.
  std::uint32_t seq = 0;
  std::string name;
};

struct RankProgram {
  std::string name;
  std::vector<std::string> streams;
  std::vector<ProgramTask> tasks;                      // template order
  std::vector<std::vector<std::uint32_t>> stream_order;  // per stream: task indices in run order
  std::vector<StreamPosition> waits;
  std::vector<trace::KernelMetrics> metrics;          // of the compute kernels that have them

  std::size_t task_count() const { return tasks.size(); }
};

// Maps a communicator slot name to its index (the workload's slot table).
using SlotIndexer = std::function<std::uint32_t(const std::string&)>;
// Source line of task `task_index` of the template, or 0 when unknown (binary traces).
using TaskLine = std::function<int(int task_index)>;

// Compiles and checks a template: stream indices, unique ids, dependencies that exist, no
// dependency cycle (the cycle is named). Throws UserError mentioning `file`.
RankProgram compile_program(const trace::RankTemplate& tmpl, const std::string& file,
                            const SlotIndexer& slot_of, const TaskLine& line_of);

} // namespace echo::workloads
