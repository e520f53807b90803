// The CUPTI tracer's conversion from activity records to a trace, fed with synthetic records (no
// GPU needed), and the merge of per-process files into a job.
#include "base/user_error.hpp"
#include "workloads/trace_reader.hpp"
#include "workloads/importers/traced_job.hpp"
#include "workloads/tracer/process_trace.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace echo;
using namespace echo::workloads;
using namespace echo::workloads::tracer;

namespace {

// A log builder: each launch is a runtime call (correlation c, thread 1) and its GPU activity.
struct LogBuilder {
  ActivityLog log;
  std::uint32_t next_correlation = 1;

  std::uint32_t launch(const std::string& name, std::uint32_t stream, std::uint64_t call_ns, std::uint64_t start_ns,
                       std::uint64_t end_ns, std::uint32_t thread = 1) {
    const std::uint32_t c = next_correlation++;
    log.api.push_back({c, thread, call_ns, call_ns + 2000});
    const auto it = std::find(log.names.begin(), log.names.end(), name);
    const auto index = static_cast<std::uint32_t>(it - log.names.begin());
    if (it == log.names.end())
      log.names.push_back(name);
    log.gpu.push_back({GpuActivityKind::kernel, index, stream, c, start_ns, end_ns});
    return c;
  }
  void record_event(std::uint32_t event, std::uint32_t stream, std::uint64_t call_ns) {
    const std::uint32_t c = next_correlation++;
    log.api.push_back({c, 1, call_ns, call_ns + 500});
    log.event_records.push_back({c, event, stream});
  }
  void wait_event(std::uint32_t stream, std::uint32_t event, std::uint64_t call_ns) {
    const std::uint32_t c = next_correlation++;
    log.api.push_back({c, 1, call_ns, call_ns + 500});
    log.syncs.push_back({SyncKind::stream_wait_event, c, stream, event, call_ns, call_ns + 500});
  }
};

const trace::Task* task_named(const trace::RankTemplate& t, const std::string& name) {
  for (const auto& task : t.tasks())
    if (task.name() == name)
      return &task;
  return nullptr;
}

bool depends_on(const trace::Task& task, const trace::Task& on) {
  return std::find(task.deps().begin(), task.deps().end(), on.id()) != task.deps().end();
}

} // namespace

TEST_CASE("tracer records: kernels per stream, host launch gaps, and a stream waiting on an event") {
  LogBuilder b;
  b.log.pid = 42;
  b.launch("gemm_a", 7, 1'000, 10'000, 60'000);
  b.record_event(3, 7, 3'000);
  b.launch("gemm_b", 7, 4'000, 60'000, 90'000);  // after the record: not awaited
  b.wait_event(13, 3, 5'000);
  b.launch("ncclDevKernel_AllReduce", 13, 6'000, 60'000, 80'000);  // no NCCL call known: a kernel
  ProcessTraceStats stats;
  const trace::Trace t = process_trace(b.log, &stats);
  REQUIRE(t.templates_size() == 1);
  const trace::RankTemplate& tmpl = t.templates(0);
  CHECK(tmpl.name() == "pid42");
  CHECK(stats.kernels == 3);
  CHECK(stats.nccl_kernels_without_call == 1);
  const auto* a = task_named(tmpl, "gemm_a");
  const auto* bk = task_named(tmpl, "gemm_b");
  const auto* nccl = task_named(tmpl, "ncclDevKernel_AllReduce");
  REQUIRE((a && bk && nccl));
  CHECK(a->compute().duration_ns() == 50'000);
  CHECK(a->category() == trace::GEMM);
  CHECK(tmpl.streams(a->stream()) == "stream 7");
  CHECK(tmpl.streams(nccl->stream()) == "stream 13");
  CHECK(depends_on(*nccl, *a));    // the event was recorded after gemm_a
  CHECK(!depends_on(*nccl, *bk));  // and before gemm_b
  // Host thread 1: launches at 1, 4 and 6 us from the origin (the first launch call).
  std::vector<std::uint64_t> host;
  for (const auto& task : tmpl.tasks())
    if (task.category() == trace::HOST)
      host.push_back(task.compute().duration_ns());
  CHECK(host == std::vector<std::uint64_t>{0, 3'000, 2'000});
  CHECK(t.measured_iteration_ns() == 89'000);
  CHECK(t.process().pid() == 42);
}

TEST_CASE("tracer records: NCCL calls become collectives and transfers on their communicator") {
  LogBuilder b;
  b.log.launcher_rank = 1;
  b.log.comms.push_back({0xA0, "nccl-world", 1, 4});
  const std::uint32_t ar = b.launch("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 5, 1'000, 2'000, 42'000);
  const std::uint32_t grp = b.launch("ncclDevKernel_SendRecv", 5, 50'000, 50'000, 80'000);
  const std::uint32_t ag = b.launch("ncclDevKernel_AllGather_RING_LL", 5, 90'000, 90'000, 95'000);
  b.log.external = {{ar, 100}, {grp, 101}, {ag, 102}};
  auto call = [](NcclOp op, std::uint64_t launch, std::uint64_t count, std::uint32_t peer) {
    NcclCall c;
    c.op = op;
    c.launch = launch;
    c.comm = 0xA0;
    c.count = count;
    c.dtype = 3;  // BFLOAT16
    c.dtype_bytes = 2;
    c.peer = peer;
    return c;
  };
  b.log.nccl = {call(NcclOp::of(trace::ALL_REDUCE), 100, 1'000'000, 0), call(NcclOp::side(Transfer::send), 101, 3'000, 2),
                call(NcclOp::side(Transfer::recv), 101, 1'000, 0), call(NcclOp::of(trace::ALL_GATHER), 102, 500, 0)};
  ProcessTraceStats stats;
  const trace::Trace t = process_trace(b.log, &stats);
  const trace::RankTemplate& tmpl = t.templates(0);
  CHECK(tmpl.name() == "rank1");
  CHECK(stats.nccl_calls == 4);
  const auto* allreduce = task_named(tmpl, "ncclAllReduce");
  REQUIRE(allreduce != nullptr);
  CHECK(allreduce->collective().op() == trace::ALL_REDUCE);
  CHECK(allreduce->collective().comm() == "nccl-world");
  CHECK(allreduce->collective().bytes() == 2'000'000);
  CHECK(allreduce->collective().dtype() == trace::BFLOAT16);
  CHECK(allreduce->collective().measured_duration_ns() == 40'000);
  // A group's kernel becomes its calls, in call order, on the kernel's stream.
  const auto* send = task_named(tmpl, "ncclSend");
  const auto* recv = task_named(tmpl, "ncclRecv");
  REQUIRE((send && recv));
  CHECK(send->send().peer() == 2);
  CHECK(send->send().bytes() == 6'000);
  CHECK(recv->recv().peer() == 0);
  // NCCL runs a group's receives alongside its sends: on a stream of their own, joined at the
  // group's end, so a send blocked on its peer never holds up the receive.
  CHECK(tmpl.streams(send->stream()) == "stream 5");
  CHECK(tmpl.streams(recv->stream()) == "stream 5 grouped recv");
  CHECK(depends_on(*recv, *allreduce));
  const auto* joined = task_named(tmpl, "ncclGroupEnd");
  REQUIRE(joined != nullptr);
  CHECK(joined->stream() == send->stream());
  CHECK(depends_on(*joined, *recv));
  // AllGather is counted by its output: the per-rank count times the communicator size.
  CHECK(task_named(tmpl, "ncclAllGather")->collective().bytes() == 500 * 2 * 4);
  CHECK(t.process().comms_size() == 1);
  CHECK(t.process().comms(0).size() == 4);
}

TEST_CASE("tracer records: host-side waits and the cudaProfilerStart / Stop window") {
  LogBuilder b;
  b.launch("warmup", 7, 0, 1'000, 2'000);                // before the window
  b.log.captures.push_back({10'000, 200'000});
  const std::uint32_t k = b.launch("step_kernel", 7, 11'000, 12'000, 100'000);
  (void)k;
  // cudaStreamSynchronize(7) from 20 us to 100 us, then a launch at 110 us.
  const std::uint32_t sync = b.next_correlation++;
  b.log.api.push_back({sync, 1, 20'000, 100'000});
  b.log.syncs.push_back({SyncKind::stream_synchronize, sync, 7, 0, 20'000, 100'000});
  b.launch("after_sync", 7, 110'000, 110'500, 120'000);
  const trace::Trace t = process_trace(b.log);
  const trace::RankTemplate& tmpl = t.templates(0);
  CHECK(task_named(tmpl, "warmup") == nullptr);
  const auto* wait = task_named(tmpl, "host synchronize");
  REQUIRE(wait != nullptr);
  CHECK(depends_on(*wait, *task_named(tmpl, "step_kernel")));
  // The host's time after the wait counts from when the wait returned (100 us), not from the call.
  std::vector<std::uint64_t> host;
  for (const auto& task : tmpl.tasks())
    if (task.category() == trace::HOST)
      host.push_back(task.compute().duration_ns());
  CHECK(host == std::vector<std::uint64_t>{1'000, 9'000, 0, 10'000});
  CHECK(t.measured_iteration_ns() == 110'000);
  // The trace runs: the engine replays it as one process.
  const Workload w = build_workload(merge_process_traces({{"p.pb", t}}), "p.pb");
  CHECK(w.rank_count() == 1);
}

TEST_CASE("tracer records without CUPTI: NCCL calls alone still make a runnable trace") {
  ActivityLog log;
  log.comms.push_back({0xB0, "nccl-pair", 0, 1});
  NcclCall c;
  c.launch = 7;
  c.comm = 0xB0;
  c.count = 1024;
  c.stream = 0x55;
  log.nccl.push_back(c);
  ProcessTraceStats stats;
  const trace::Trace t = process_trace(log, &stats);
  CHECK(stats.nccl_calls_without_kernel == 1);
  CHECK(t.templates(0).streams(0) == "nccl stream 0x55");
  CHECK(t.templates(0).tasks(0).collective().bytes() == 4096);
}

namespace {

trace::Trace process_file(std::int32_t launcher_rank, std::uint32_t pid, std::vector<std::tuple<std::string, std::uint32_t, std::uint32_t>> comms) {
  ActivityLog log;
  log.pid = pid;
  log.launcher_rank = launcher_rank;
  std::uint64_t handle = 1;
  for (const auto& [id, rank, size] : comms) {
    log.comms.push_back({handle, id, rank, size});
    NcclCall c;
    c.launch = handle;
    c.comm = handle++;
    c.count = 256;
    log.nccl.push_back(c);
  }
  return process_trace(log);
}

} // namespace

TEST_CASE("merging traced processes: ranks, communicators, and what cannot be merged") {
  // Two processes without launcher ranks: their rank in the communicator both joined decides.
  std::vector<TracedProcessFile> files = {{"b.trace.pb", process_file(-1, 20, {{"w", 1, 2}, {"solo", 0, 1}})},
                                          {"a.trace.pb", process_file(-1, 30, {{"w", 0, 2}})}};
  const trace::Trace job = merge_process_traces(files);
  REQUIRE(job.communicators_size() == 2);
  CHECK(job.templates(0).name() == "rank0");
  const Workload w = build_workload(job, "job");
  CHECK(w.rank_count() == 2);
  CHECK(w.program(0).tasks.size() == 1);  // pid 30 is member 0 of `w`
  CHECK(w.program(1).tasks.size() == 2);
  // Launcher ranks win over communicator ranks.
  const trace::Trace by_launcher =
      merge_process_traces({{"x", process_file(1, 30, {{"w", 0, 2}})}, {"y", process_file(0, 20, {{"w", 1, 2}})}});
  CHECK(by_launcher.templates(0).tasks_size() == 1);
  CHECK(by_launcher.communicators(0).ranks(0) == 1);

  auto problem = [](std::vector<TracedProcessFile> f) {
    try {
      merge_process_traces(std::move(f));
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(problem({{"x", process_file(-1, 1, {{"w", 0, 4}})}, {"y", process_file(-1, 2, {{"w", 2, 4}})}})
            .find("has 4 members, but member(s) 1, 3 were not traced") != std::string::npos);
  CHECK(problem({{"x", process_file(-1, 1, {{"w", 0, 2}})}, {"y", process_file(-1, 2, {{"w", 0, 3}})}})
            .find("has 3 members here but 2") != std::string::npos);
  CHECK(problem({{"x", trace::Trace()}}).find("not a per-process file") != std::string::npos);
  CHECK(problem({}).find("no traced process") != std::string::npos);
}
