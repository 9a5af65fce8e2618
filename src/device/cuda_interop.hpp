// Vulkan memory and timeline semaphores imported into CUDA through exported fds.
#pragma once

#include <cstdint>

#include "device/cuda_driver.hpp"
#include "vk/buffer.hpp"
#include "vk/physical_device.hpp"

namespace batchsim::device::cuda {

// The CUDA device behind a Vulkan device (same UUID), with its primary context: the
// context PyTorch uses, so imported pointers are valid in PyTorch's kernels.
struct CudaDevice {
    int ordinal = -1;
    CUdevice handle = 0;
    CUcontext primary = nullptr;
};

// Finds the CUDA device with `uuid`; nullopt-like ordinal -1 when there is none.
int find_ordinal(const vk::Uuid& uuid);
// The UUID of CUDA device `ordinal`; throws DeviceNotFound if out of range or no driver.
vk::Uuid device_uuid(int ordinal);

CudaDevice open_device(int ordinal);
void close_device(CudaDevice& device);

// Makes the device's primary context current for the scope (CUDA calls need one).
class ContextScope {
public:
    explicit ContextScope(const CudaDevice& device);
    ~ContextScope();
    ContextScope(const ContextScope&) = delete;
    ContextScope& operator=(const ContextScope&) = delete;
};

struct ImportedBuffer {
    CUexternalMemory memory = nullptr;
    CUdeviceptr pointer = 0;
};
ImportedBuffer import_buffer(const CudaDevice& device, const vk::Device& vk_device,
                             const vk::Buffer& buffer);
void release_buffer(const CudaDevice& device, ImportedBuffer& buffer) noexcept;

struct ImportedTimeline {
    CUexternalSemaphore semaphore = nullptr;
};
ImportedTimeline import_timeline(const CudaDevice& device, const vk::Device& vk_device,
                                 VkSemaphore timeline);
void release_timeline(const CudaDevice& device, ImportedTimeline& timeline) noexcept;

// Enqueue on `stream`: work after this waits until the timeline reaches `value` /
// the timeline is set to `value` once all work before this on the stream is done.
void wait_on_stream(const CudaDevice& device, const ImportedTimeline& timeline, std::uint64_t value,
                    CUstream stream);
void signal_on_stream(const CudaDevice& device, const ImportedTimeline& timeline,
                      std::uint64_t value, CUstream stream);

}  // namespace batchsim::device::cuda
