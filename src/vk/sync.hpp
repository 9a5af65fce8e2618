// Timeline semaphores: the one synchronisation primitive batchsim uses between the CPU,
// Vulkan queues and (through an exported fd) CUDA streams. And the pipeline barriers that
// order work inside a command buffer: memory, buffer and image (layout) barriers.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#include <vulkan/vulkan_core.h>

#include "vk/buffer.hpp"
#include "vk/device.hpp"
#include "vk/image.hpp"

namespace batchsim::vk {

// How long a host wait for a GPU may take before it is reported as a hang rather than
// waited out. A CPU device's waits go on while this process keeps using CPU time, and
// BATCHSIM_WAIT_TIMEOUT_S replaces the limit (core/wait_limit.hpp).
inline constexpr std::chrono::seconds kHostWaitTimeout{120};

VkSemaphore create_timeline_semaphore(const Device& device, bool exportable);
void destroy_semaphore(const Device& device, VkSemaphore& semaphore);

// Blocks until the semaphore reaches `value`; on a hang (kHostWaitTimeout, see above) throws
// Error(Timeout) naming `what` was waited for (the GPU work that never finished). The work
// may still be running then: what it uses must not be freed (GpuContext::settle()).
void wait_timeline(const Device& device, VkSemaphore semaphore, std::uint64_t value,
                   std::string_view what);

// Records that what `what` names is left allocated, not freed, because work on `device` may
// still use it (a wait for that work timed out): freeing memory the device still executes
// crashed the process (issue 40). Marks the device abandoned (Device::abandoned) and warns
// on stderr, once per process. Never throws.
void abandon_to_running_work(const Device& device, std::string_view what) noexcept;

// A global memory barrier between two passes recorded into one command buffer.
void record_memory_barrier(VkCommandBuffer commands, VkPipelineStageFlags src_stage,
                           VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                           VkAccessFlags dst_access);

// One barrier over a whole buffer. Queue family indices other than VK_QUEUE_FAMILY_IGNORED
// make it half of an ownership transfer.
struct BufferBarrier {
    VkPipelineStageFlags2 src_stage = VK_PIPELINE_STAGE_2_NONE;
    VkAccessFlags2 src_access = VK_ACCESS_2_NONE;
    VkPipelineStageFlags2 dst_stage = VK_PIPELINE_STAGE_2_NONE;
    VkAccessFlags2 dst_access = VK_ACCESS_2_NONE;
    std::uint32_t src_family = VK_QUEUE_FAMILY_IGNORED;
    std::uint32_t dst_family = VK_QUEUE_FAMILY_IGNORED;
};

// Records `barrier` with vkCmdPipelineBarrier2 (synchronization2).
void record_buffer_barrier(const Device& device, VkCommandBuffer commands, const Buffer& buffer,
                           const BufferBarrier& barrier);

// The staging buffer's copy results become readable by the host.
void copy_to_host_barrier(const Device& device, VkCommandBuffer commands, const Buffer& staging);

// One image barrier over `mip_count` levels from `base_mip` and all layers. Queue family
// indices other than VK_QUEUE_FAMILY_IGNORED make it half of an ownership transfer.
struct ImageBarrier {
    VkImageLayout old_layout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkImageLayout new_layout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkPipelineStageFlags2 src_stage = VK_PIPELINE_STAGE_2_NONE;
    VkAccessFlags2 src_access = VK_ACCESS_2_NONE;
    VkPipelineStageFlags2 dst_stage = VK_PIPELINE_STAGE_2_NONE;
    VkAccessFlags2 dst_access = VK_ACCESS_2_NONE;
    std::uint32_t src_family = VK_QUEUE_FAMILY_IGNORED;
    std::uint32_t dst_family = VK_QUEUE_FAMILY_IGNORED;
    std::uint32_t base_mip = 0;
    std::uint32_t mip_count = VK_REMAINING_MIP_LEVELS;
};

// Records `barrier` with vkCmdPipelineBarrier2; the device must enable synchronization2.
void record_image_barrier(const Device& device, VkCommandBuffer commands, const Image& image,
                          const ImageBarrier& barrier);

}  // namespace batchsim::vk
