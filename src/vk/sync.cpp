#include "vk/sync.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "core/wait_limit.hpp"

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

namespace {

std::string hang_message(const Device& device, const WaitLimit& limit, double waited,
                         std::string_view what, std::uint64_t value) {
    const std::string waited_for = str("waited ", waited, " s for ", what, " on '",
                                       device.info.name, "' (timeline value ", value, ")");
    if (limit.hard)
        return str(waited_for, ": the limit BATCHSIM_WAIT_TIMEOUT_S sets (", limit.slice_seconds(),
                   " s) ran out before it finished");
    if (limit.while_busy)
        return str(waited_for, ", a CPU device, and this process used no CPU time for the last ",
                   limit.slice_seconds(), " s: the device is stuck, not slow");
    return str(waited_for, "; it never finished: the GPU or a CUDA stream it waits for is stuck");
}

}  // namespace

void wait_timeline(const Device& device, VkSemaphore semaphore, std::uint64_t value,
                   std::string_view what) {
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.semaphoreCount = 1;
    info.pSemaphores = &semaphore;
    info.pValues = &value;
    // A CPU device renders on this process's threads: its progress is our CPU time.
    const WaitLimit limit =
        wait_limit(kHostWaitTimeout, device.info.type == VK_PHYSICAL_DEVICE_TYPE_CPU);
    VkResult result = VK_SUCCESS;
    double waited = 0;
    const bool done = wait_within(
        limit,
        [&](std::chrono::nanoseconds slice) {
            result = vkWaitSemaphores(
                device.handle, &info,
                static_cast<std::uint64_t>(std::max<std::int64_t>(slice.count(), 0)));
            return result != VK_TIMEOUT;
        },
        waited);
    BATCHSIM_CHECK(done, Timeout, hang_message(device, limit, waited, what, value));
    VK_CHECK(result);
}

void abandon_to_running_work(const Device& device, std::string_view what) noexcept {
    device.abandoned->store(true);
    static std::atomic<bool> warned{false};
    if (warned.exchange(true)) return;
    std::fprintf(stderr,
                 "batchsim: warning: work on '%s' was still running at teardown (a wait for it "
                 "timed out); %.*s and the device are left allocated rather than freed under "
                 "it (the process's exit reclaims them)\n",
                 device.info.name.c_str(), static_cast<int>(what.size()), what.data());
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
