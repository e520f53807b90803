#include "workloads/tracer/tracer_state.hpp"

#include "workloads/tracer/process_trace.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace echo::workloads::tracer {

namespace {

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0')
    return fallback;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  return end != nullptr && *end == '\0' && n > 0 ? n : fallback;
}

std::int32_t launcher_rank() {
  for (const char* name : {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0')
      continue;
    char* end = nullptr;
    const long r = std::strtol(v, &end, 10);
    if (end != nullptr && *end == '\0' && r >= 0)
      return static_cast<std::int32_t>(r);
  }
  return -1;
}

void write_at_exit_hook() { TracerState::get().write_at_exit(); }

} // namespace

TracerState& TracerState::get() {
  // Never destroyed: atexit handlers and CUPTI's threads may still use it during exit.
  static TracerState* state = new TracerState();
  return *state;
}

TracerState::TracerState() : max_records_(env_number("ECHO_TRACE_MAX_RECORDS", 8'000'000)) {
  log_.pid = static_cast<std::uint32_t>(getpid());
  log_.launcher_rank = launcher_rank();
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0)
    log_.host = host;
  std::atexit(write_at_exit_hook);
}

void TracerState::record(const std::function<void(ActivityLog&)>& add) {
  std::lock_guard lock(mutex_);
  if (written_)
    return;
  if (records_ >= max_records_) {
    ++log_.dropped_records;
    return;
  }
  ++records_;
  add(log_);
}

void TracerState::count_dropped(std::uint64_t n) {
  std::lock_guard lock(mutex_);
  log_.dropped_records += n;
}

void TracerState::set_flush(std::function<void()> flush) {
  std::lock_guard lock(mutex_);
  flush_ = std::move(flush);
}

std::uint64_t TracerState::next_launch_id() {
  std::lock_guard lock(mutex_);
  return next_launch_++;
}

void TracerState::write_at_exit() {
  std::function<void()> flush;
  {
    std::lock_guard lock(mutex_);
    if (written_)
      return;
    flush = flush_;
  }
  if (flush)
    flush();  // outside the lock: CUPTI calls back into record()
  std::lock_guard lock(mutex_);
  written_ = true;
  // Nothing traced (a helper process that never touched CUDA or NCCL): no file.
  if (log_.gpu.empty() && log_.nccl.empty() && log_.comms.empty())
    return;
  const char* dir = std::getenv("ECHO_TRACE_DIR");
  const std::string base = (dir != nullptr && *dir != '\0' ? std::string(dir) : std::string(".")) + "/" +
                           (log_.host.empty() ? std::string("host") : log_.host) + "." + std::to_string(log_.pid);
  try {
    const trace::Trace t = process_trace(log_);
    {
      std::ofstream out(base + ".tmp", std::ios::binary);
      if (!out || !t.SerializeToOstream(&out)) {
        std::fprintf(stderr, "echo-des tracer: cannot write %s.tmp\n", base.c_str());
        return;
      }
    }
    std::rename((base + ".tmp").c_str(), (base + ".trace.pb").c_str());
    if (log_.dropped_records > 0)
      std::fprintf(stderr, "echo-des tracer: %llu records dropped (buffers full); the trace says so\n",
                   static_cast<unsigned long long>(log_.dropped_records));
  } catch (const std::exception& e) {
    // The traced program is exiting: report, never throw out of an atexit handler.
    std::fprintf(stderr, "echo-des tracer: could not write the trace: %s\n", e.what());
  }
}

} // namespace echo::workloads::tracer
