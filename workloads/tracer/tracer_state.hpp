#pragma once
// The tracer's one piece of process-wide state: the activity log under a lock, with a bound on how
// many records it keeps (ECHO_TRACE_MAX_RECORDS, default 8 million; beyond it records are counted
// as dropped, never grown into the traced program's memory), and the file it writes at exit:
// ECHO_TRACE_DIR/<host>.<pid>.trace.pb.
#include "workloads/tracer/activity_log.hpp"

#include <cstdint>
#include <functional>
#include <mutex>
#include <string_view>

namespace echo::workloads::tracer {

class TracerState {
public:
  static TracerState& get();

  // Runs `add` on the log under the lock if one more record fits; counts a drop otherwise.
  void record(const std::function<void(ActivityLog&)>& add);
  void count_dropped(std::uint64_t n);

  // Called once before writing (CUPTI flushes its buffers here).
  void set_flush(std::function<void()> flush);
  // Writes the process's trace; idempotent, registered with atexit.
  void write_at_exit();
  std::uint64_t next_launch_id();

private:
  TracerState();
  std::mutex mutex_;
  ActivityLog log_;
  std::uint64_t records_ = 0, max_records_ = 0, next_launch_ = 1;
  std::function<void()> flush_;
  bool written_ = false;
};

} // namespace echo::workloads::tracer
