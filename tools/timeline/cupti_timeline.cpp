// A timeline of a process's GPU work, for finding where a latency-bound call spends its time: every
// kernel, copy and fill with its start and end on the GPU, and every CUDA runtime call with its start
// and end on the host. Loaded into an unchanged program by LD_PRELOAD (tools/timeline.sh); the records
// go to $WARPDEX_TIMELINE as CSV when the process exits. Nsight Systems does this too, but the GPU
// machines have only the toolkit's CUPTI library.
#include <cupti.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace {

constexpr std::size_t buffer_bytes = std::size_t{8} << 20;

std::mutex records_mutex;
std::FILE* records = nullptr;

#define TIMELINE_CHECK(call)                                                                    \
  do {                                                                                          \
    const CUptiResult status_ = (call);                                                         \
    if (status_ != CUPTI_SUCCESS) {                                                             \
      const char* message_ = nullptr;                                                           \
      cuptiGetResultString(status_, &message_);                                                 \
      std::fprintf(stderr, "timeline: %s failed: %s\n", #call, message_ ? message_ : "unknown"); \
    }                                                                                           \
  } while (0)

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records)
{
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, buffer_bytes));
  *size = buffer_bytes;
  *max_records = 0;
}

// CSV columns: kind, name, start_ns, end_ns, stream (GPU records) or thread (API records), correlation, bytes.
void write_record(const CUpti_Activity* record)
{
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      std::fprintf(records, "kernel,\"%s\",%llu,%llu,%u,%u,%u\n", kernel->name,
                   static_cast<unsigned long long>(kernel->start), static_cast<unsigned long long>(kernel->end),
                   kernel->streamId, kernel->correlationId, kernel->gridX * kernel->gridY * kernel->gridZ);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      std::fprintf(records, "memcpy,kind%u,%llu,%llu,%u,%u,%llu\n", static_cast<unsigned>(copy->copyKind),
                   static_cast<unsigned long long>(copy->start), static_cast<unsigned long long>(copy->end),
                   copy->streamId, copy->correlationId, static_cast<unsigned long long>(copy->bytes));
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* fill = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      std::fprintf(records, "memset,memset,%llu,%llu,%u,%u,%llu\n", static_cast<unsigned long long>(fill->start),
                   static_cast<unsigned long long>(fill->end), fill->streamId, fill->correlationId,
                   static_cast<unsigned long long>(fill->bytes));
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* api = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      const char* name = nullptr;
      cuptiGetCallbackName(record->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API
                                                                       : CUPTI_CB_DOMAIN_DRIVER_API,
                           api->cbid, &name);
      std::fprintf(records, "%s,%s,%llu,%llu,%u,%u,0\n", record->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? "runtime" : "driver",
                   name ? name : "?", static_cast<unsigned long long>(api->start),
                   static_cast<unsigned long long>(api->end), api->threadId, api->correlationId);
      break;
    }
    default: break;
  }
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid)
{
  {
    std::lock_guard lock(records_mutex);
    CUpti_Activity* record = nullptr;
    while (records && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) { write_record(record); }
  }
  std::free(buffer);
}

struct timeline {
  timeline()
  {
    const char* path = std::getenv("WARPDEX_TIMELINE");
    if (!path) { return; }
    records = std::fopen(path, "w");
    if (!records) {
      std::fprintf(stderr, "timeline: cannot write %s\n", path);
      return;
    }
    std::fprintf(records, "kind,name,start_ns,end_ns,stream_or_thread,correlation,bytes_or_blocks\n");
    TIMELINE_CHECK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    TIMELINE_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    TIMELINE_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
    TIMELINE_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET));
    if (std::getenv("WARPDEX_TIMELINE_API")) { TIMELINE_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME)); }
  }
  ~timeline()
  {
    if (!records) { return; }
    TIMELINE_CHECK(cuptiActivityFlushAll(1));
    std::lock_guard lock(records_mutex);
    std::fclose(records);
    records = nullptr;
  }
};

const timeline trace;

}  // namespace
