// The CUDA side of the tracer. The CUDA driver calls InitializeInjection() when the library is
// named by CUDA_INJECTION64_PATH; from then on CUPTI's activity API hands over kernel, memcpy,
// memset, runtime / driver call, CUDA event, synchronisation and external-correlation records in
// buffers, which are read into the activity log and given back.
//
// Bounded: at most kMaxBuffers buffers are out at a time; when CUPTI asks for more, it gets none
// and drops records, which it counts (cuptiActivityGetNumDroppedRecords) and the trace reports.
#include "workloads/tracer/cupti_bridge.hpp"
#include "workloads/tracer/cupti_records.hpp"
#include "workloads/tracer/tracer_state.hpp"

#include <cupti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace echo::workloads::tracer {

namespace {

constexpr std::size_t kBufferBytes = 8u << 20;
constexpr int kMaxBuffers = 16;
constexpr std::size_t kAlign = 8;

std::atomic<bool> active{false};
std::atomic<int> buffers_out{0};
CUpti_SubscriberHandle subscriber = nullptr;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;
  if (buffers_out.fetch_add(1) >= kMaxBuffers) {
    buffers_out.fetch_sub(1);
    *buffer = nullptr;  // CUPTI drops the records and counts them
    *size = 0;
    return;
  }
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlign, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  if (*buffer == nullptr)
    buffers_out.fetch_sub(1);
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
  if (buffer == nullptr)
    return;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
    read_cupti_record(record, [](const std::function<void(ActivityLog&)>& add) { TracerState::get().record(add); });
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS && dropped > 0)
    TracerState::get().count_dropped(dropped);
  std::free(buffer);
  buffers_out.fetch_sub(1);
}

// cudaProfilerStart / Stop bracket what the program wants traced (as with nsys's
// --capture-range=cudaProfilerApi).
void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API || info->callbackSite != CUPTI_API_EXIT)
    return;
  std::uint64_t now = 0;
  cuptiGetTimestamp(&now);
  if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000)
    TracerState::get().record([&](ActivityLog& log) { log.captures.push_back({now, 0}); });
  else if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000)
    TracerState::get().record([&](ActivityLog& log) {
      if (!log.captures.empty() && log.captures.back().end_ns == 0)
        log.captures.back().end_ns = now;
    });
}

bool start() {
  if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS)
    return false;
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_CUDA_EVENT, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
        CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION})
    if (cuptiActivityEnable(kind) != CUPTI_SUCCESS)
      std::fprintf(stderr, "echo-des tracer: CUPTI cannot record activity kind %d; the trace will lack it\n", static_cast<int>(kind));
  if (cuptiSubscribe(&subscriber, on_callback, nullptr) == CUPTI_SUCCESS) {
    cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
    cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
  }
  TracerState::get().set_flush([] { cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); });
  return true;
}

} // namespace

void push_external_correlation(std::uint64_t id) {
  if (active.load(std::memory_order_relaxed))
    cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
}

void pop_external_correlation() {
  std::uint64_t last = 0;
  if (active.load(std::memory_order_relaxed))
    cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

} // namespace echo::workloads::tracer

// The CUDA driver's entry point for CUDA_INJECTION64_PATH. Returns 1 on success.
extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] {
    ok = echo::workloads::tracer::start();
    echo::workloads::tracer::active = ok;
    if (!ok)
      std::fprintf(stderr, "echo-des tracer: CUPTI did not start; only NCCL calls are traced\n");
  });
  return ok ? 1 : 0;
}
