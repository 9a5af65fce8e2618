#include "vk/sync.hpp"

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::vk {

VkSemaphore create_timeline_semaphore(const Device& device, bool exportable) {
    BATCHSIM_CHECK(!exportable || device.external_interop, Unsupported,
                   "exportable semaphores need a device created with external interop");
    VkExportSemaphoreCreateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    export_info.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkSemaphoreTypeCreateInfo type_info{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                        exportable ? &export_info : nullptr};
    type_info.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type_info.initialValue = 0;
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type_info};
    VkSemaphore semaphore = VK_NULL_HANDLE;
    VK_CHECK(vkCreateSemaphore(device.handle, &info, nullptr, &semaphore));
    return semaphore;
}

void destroy_semaphore(const Device& device, VkSemaphore& semaphore) {
    if (semaphore != VK_NULL_HANDLE) vkDestroySemaphore(device.handle, semaphore, nullptr);
    semaphore = VK_NULL_HANDLE;
}

void wait_timeline(const Device& device, VkSemaphore semaphore, std::uint64_t value,
                   std::string_view what) {
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.semaphoreCount = 1;
    info.pSemaphores = &semaphore;
    info.pValues = &value;
    const auto timeout =
        std::chrono::duration_cast<std::chrono::nanoseconds>(kHostWaitTimeout).count();
    const VkResult result =
        vkWaitSemaphores(device.handle, &info, static_cast<std::uint64_t>(timeout));
    BATCHSIM_CHECK(result != VK_TIMEOUT, Timeout,
                   str("waited ", kHostWaitTimeout.count(), " s for ", what,
                       " on the GPU; it never finished (timeline value ", value,
                       " never signalled): the GPU or a CUDA stream it waits for is stuck"));
    VK_CHECK(result);
}

void record_memory_barrier(VkCommandBuffer commands, VkPipelineStageFlags src_stage,
                           VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                           VkAccessFlags dst_access) {
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = src_access;
    barrier.dstAccessMask = dst_access;
    vkCmdPipelineBarrier(commands, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

void record_buffer_barrier(const Device& device, VkCommandBuffer commands, const Buffer& buffer,
                           const BufferBarrier& barrier) {
    VkBufferMemoryBarrier2 b{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2};
    b.srcStageMask = barrier.src_stage;
    b.srcAccessMask = barrier.src_access;
    b.dstStageMask = barrier.dst_stage;
    b.dstAccessMask = barrier.dst_access;
    b.srcQueueFamilyIndex = barrier.src_family;
    b.dstQueueFamilyIndex = barrier.dst_family;
    b.buffer = buffer.handle;
    b.offset = 0;
    b.size = VK_WHOLE_SIZE;
    VkDependencyInfo dependency{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dependency.bufferMemoryBarrierCount = 1;
    dependency.pBufferMemoryBarriers = &b;
    device.functions.cmd_pipeline_barrier2(commands, &dependency);
}

void copy_to_host_barrier(const Device& device, VkCommandBuffer commands, const Buffer& staging) {
    record_buffer_barrier(device, commands, staging,
                          {VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                           VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT});
}

void record_image_barrier(const Device& device, VkCommandBuffer commands, const Image& image,
                          const ImageBarrier& barrier) {
    BATCHSIM_CHECK(device.functions.cmd_pipeline_barrier2 != nullptr, Unsupported,
                   str("device '", device.info.name, "' lacks synchronization2"));
    VkImageMemoryBarrier2 b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
    b.srcStageMask = barrier.src_stage;
    b.srcAccessMask = barrier.src_access;
    b.dstStageMask = barrier.dst_stage;
    b.dstAccessMask = barrier.dst_access;
    b.oldLayout = barrier.old_layout;
    b.newLayout = barrier.new_layout;
    b.srcQueueFamilyIndex = barrier.src_family;
    b.dstQueueFamilyIndex = barrier.dst_family;
    b.image = image.handle;
    b.subresourceRange = {image.aspect, barrier.base_mip, barrier.mip_count, 0,
                          VK_REMAINING_ARRAY_LAYERS};
    VkDependencyInfo dependency{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dependency.imageMemoryBarrierCount = 1;
    dependency.pImageMemoryBarriers = &b;
    device.functions.cmd_pipeline_barrier2(commands, &dependency);
}

}  // namespace batchsim::vk
