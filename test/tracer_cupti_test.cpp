// The tracer's reading of CUPTI activity records, fed with records built by hand in CUDA 13's
// layouts (no GPU needed), then turned into a trace.
#include "workloads/tracer/cupti_records.hpp"
#include "workloads/tracer/process_trace.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>

using namespace echo;
using namespace echo::workloads::tracer;

namespace {

template <typename Record>
Record blank(CUpti_ActivityKind kind) {
  Record r;
  std::memset(&r, 0, sizeof r);
  r.kind = kind;
  return r;
}

} // namespace

TEST_CASE("CUPTI records: kernels, copies, launch calls, event records, waits and NCCL correlations reach the trace") {
  ActivityLog log;
  const RecordFn into_log = [&](const std::function<void(ActivityLog&)>& add) { add(log); };
  auto feed = [&](const auto& record) { read_cupti_record(reinterpret_cast<const CUpti_Activity*>(&record), into_log); };

  auto launch = blank<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
  launch.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  launch.threadId = 11;
  launch.correlationId = 1;
  launch.start = 1000;
  launch.end = 3000;
  feed(launch);
  auto query = launch;  // a call that neither launches nor waits is not kept
  query.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020;
  query.correlationId = 2;
  feed(query);
  CHECK(log.api.size() == 1);

  auto kernel = blank<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  kernel.name = "ampere_sgemm_128x64_nn";
  kernel.streamId = 7;
  kernel.correlationId = 1;
  kernel.start = 10000;
  kernel.end = 60000;
  feed(kernel);

  auto record = blank<CUpti_ActivityCudaEvent2>(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
  record.correlationId = 3;
  record.eventId = 5;
  record.streamId = 7;
  feed(record);
  auto wait = blank<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  wait.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
  wait.correlationId = 4;
  wait.streamId = 9;
  wait.cudaEventId = 5;
  feed(wait);

  auto copy_call = launch;
  copy_call.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020;
  copy_call.correlationId = 6;
  copy_call.start = 5000;
  copy_call.end = 6000;
  feed(copy_call);
  auto copy = blank<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
  copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
  copy.streamId = 9;
  copy.correlationId = 6;
  copy.start = 60000;
  copy.end = 70000;
  feed(copy);

  auto nccl = blank<CUpti_ActivityExternalCorrelation>(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  nccl.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
  nccl.correlationId = 6;
  nccl.externalId = 42;
  feed(nccl);
  auto other_tool = nccl;  // another tool's correlations are not ours
  other_tool.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1;
  feed(other_tool);

  REQUIRE(log.gpu.size() == 2);
  CHECK(log.names[log.gpu[0].name] == "ampere_sgemm_128x64_nn");
  CHECK(log.names[log.gpu[1].name] == "Memcpy DtoD");
  CHECK(log.gpu[1].kind == GpuActivityKind::memcpy);
  CHECK(log.event_records.size() == 1);
  REQUIRE(log.syncs.size() == 1);
  CHECK(log.syncs[0].kind == SyncKind::stream_wait_event);
  CHECK(log.external.size() == 1);
  CHECK(log.api[1].thread == 11);

  // Through the conversion: the copy on stream 9 waits for the GEMM recorded on stream 7.
  const trace::Trace t = process_trace(log);
  const auto& tasks = t.templates(0).tasks();
  const auto gemm = std::find_if(tasks.begin(), tasks.end(), [](const trace::Task& x) { return x.name() == "ampere_sgemm_128x64_nn"; });
  const auto moved = std::find_if(tasks.begin(), tasks.end(), [](const trace::Task& x) { return x.name() == "Memcpy DtoD"; });
  REQUIRE((gemm != tasks.end() && moved != tasks.end()));
  CHECK(gemm->compute().duration_ns() == 50000);
  CHECK(std::find(moved->deps().begin(), moved->deps().end(), gemm->id()) != moved->deps().end());
}
