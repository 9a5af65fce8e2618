#include "device/cuda_interop.hpp"

#include <unistd.h>

#include <cstring>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "vk/external.hpp"

namespace batchsim::device::cuda {
namespace {

const Driver& require_driver() {
    std::string why_not;
    const Driver* d = driver(&why_not);
    BATCHSIM_CHECK(d != nullptr, Unsupported, str("CUDA is unavailable: ", why_not));
    return *d;
}

// Runs `release` with the device's context current after the device is idle (PyTorch may
// still be using the object). Errors are ignored: destructors call this, possibly after
// CUDA's own shutdown.
template <typename Release>
void release_quietly(const CudaDevice& device, Release release) noexcept {
    const Driver* d = driver();
    if (!d || !device.primary || d->cuCtxPushCurrent(device.primary) != CUDA_SUCCESS) return;
    d->cuCtxSynchronize();
    release(*d);
    CUcontext popped = nullptr;
    d->cuCtxPopCurrent(&popped);
}

}  // namespace

int find_ordinal(const vk::Uuid& uuid) {
    for (const auto& device : list_devices())
        if (std::memcmp(device.uuid, uuid.data(), uuid.size()) == 0) return device.ordinal;
    return -1;
}

vk::Uuid device_uuid(int ordinal) {
    std::string why_not;
    BATCHSIM_CHECK(driver(&why_not) != nullptr, DeviceNotFound,
                   str("cannot select cuda:", ordinal, ": ", why_not));
    const auto devices = list_devices();
    BATCHSIM_CHECK(ordinal >= 0 && ordinal < static_cast<int>(devices.size()), DeviceNotFound,
                   str("no CUDA device cuda:", ordinal, " (this machine has ", devices.size(),
                       " CUDA device", devices.size() == 1 ? "" : "s", ")"));
    vk::Uuid uuid{};
    std::memcpy(uuid.data(), devices[static_cast<std::size_t>(ordinal)].uuid, uuid.size());
    return uuid;
}

CudaDevice open_device(int ordinal) {
    const Driver& d = require_driver();
    CudaDevice device;
    CU_CHECK(d.cuDeviceGet(&device.handle, ordinal));
    CU_CHECK(d.cuDevicePrimaryCtxRetain(&device.primary, device.handle));
    device.ordinal = ordinal;
    return device;
}

void close_device(CudaDevice& device) {
    if (device.primary) driver()->cuDevicePrimaryCtxRelease(device.handle);
    device = CudaDevice{};
}

ContextScope::ContextScope(const CudaDevice& device) {
    CU_CHECK(driver()->cuCtxPushCurrent(device.primary));
}

ContextScope::~ContextScope() {
    CUcontext popped = nullptr;
    driver()->cuCtxPopCurrent(&popped);
}

ImportedBuffer import_buffer(const CudaDevice& device, const vk::Device& vk_device,
                             const vk::Buffer& buffer) {
    const Driver& d = require_driver();
    ContextScope scope(device);
    ExternalMemoryHandleDesc handle_desc{};
    handle_desc.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    handle_desc.handle.fd = vk::export_memory_fd(vk_device, buffer.memory);
    handle_desc.size = buffer.allocation_size;
    handle_desc.flags = buffer.dedicated ? CUDA_EXTERNAL_MEMORY_DEDICATED : 0;

    ImportedBuffer imported;
    const CUresult result = d.cuImportExternalMemory(&imported.memory, &handle_desc);
    if (result != CUDA_SUCCESS) close(handle_desc.handle.fd);  // on success CUDA owns the fd
    CU_CHECK(result);

    ExternalMemoryBufferDesc buffer_desc{};
    buffer_desc.offset = 0;
    buffer_desc.size = buffer.size;
    const CUresult mapped =
        d.cuExternalMemoryGetMappedBuffer(&imported.pointer, imported.memory, &buffer_desc);
    if (mapped != CUDA_SUCCESS) d.cuDestroyExternalMemory(imported.memory);
    CU_CHECK(mapped);
    return imported;
}

void release_buffer(const CudaDevice& device, ImportedBuffer& buffer) noexcept {
    if (!buffer.memory) return;
    release_quietly(device, [&](const Driver& d) {
        d.cuMemFree(buffer.pointer);
        d.cuDestroyExternalMemory(buffer.memory);
    });
    buffer = ImportedBuffer{};
}

ImportedTimeline import_timeline(const CudaDevice& device, const vk::Device& vk_device,
                                 VkSemaphore timeline) {
    const Driver& d = require_driver();
    ContextScope scope(device);
    ExternalSemaphoreHandleDesc desc{};
    desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
    desc.handle.fd = vk::export_semaphore_fd(vk_device, timeline);
    ImportedTimeline imported;
    const CUresult result = d.cuImportExternalSemaphore(&imported.semaphore, &desc);
    if (result != CUDA_SUCCESS) close(desc.handle.fd);
    CU_CHECK(result);
    return imported;
}

void release_timeline(const CudaDevice& device, ImportedTimeline& timeline) noexcept {
    if (!timeline.semaphore) return;
    release_quietly(device,
                    [&](const Driver& d) { d.cuDestroyExternalSemaphore(timeline.semaphore); });
    timeline = ImportedTimeline{};
}

void wait_on_stream(const CudaDevice& device, const ImportedTimeline& timeline, std::uint64_t value,
                    CUstream stream) {
    ContextScope scope(device);
    ExternalSemaphoreWaitParams params{};
    params.params.fence.value = value;
    CU_CHECK(driver()->cuWaitExternalSemaphoresAsync(&timeline.semaphore, &params, 1, stream));
}

void signal_on_stream(const CudaDevice& device, const ImportedTimeline& timeline,
                      std::uint64_t value, CUstream stream) {
    ContextScope scope(device);
    ExternalSemaphoreSignalParams params{};
    params.params.fence.value = value;
    CU_CHECK(driver()->cuSignalExternalSemaphoresAsync(&timeline.semaphore, &params, 1, stream));
}

}  // namespace batchsim::device::cuda
