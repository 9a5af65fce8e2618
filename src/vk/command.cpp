#include "vk/command.hpp"

#include "core/check.hpp"
#include "vk/sync.hpp"

namespace batchsim::vk {

CommandRing create_command_ring(const Device& device, std::uint32_t size) {
    BATCHSIM_CHECK(size > 0, Internal, "a command ring needs at least one buffer");
    CommandRing ring;
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pool_info.queueFamilyIndex = device.queue_family;
    VK_CHECK(vkCreateCommandPool(device.handle, &pool_info, nullptr, &ring.pool));

    ring.buffers.resize(size);
    ring.done_at.assign(size, 0);
    VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    info.commandPool = ring.pool;
    info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    info.commandBufferCount = size;
    VK_CHECK(vkAllocateCommandBuffers(device.handle, &info, ring.buffers.data()));
    return ring;
}

void destroy_command_ring(const Device& device, CommandRing& ring) {
    // Destroying the pool frees its buffers; callers have waited for the queue already.
    if (ring.pool != VK_NULL_HANDLE) vkDestroyCommandPool(device.handle, ring.pool, nullptr);
    ring = CommandRing{};
}

VkCommandBuffer begin_commands(const Device& device, CommandRing& ring, VkSemaphore timeline) {
    const std::uint32_t slot = ring.next;
    if (ring.done_at[slot] > 0)
        wait_timeline(device, timeline, ring.done_at[slot], "a command buffer's last submission");
    VkCommandBuffer buffer = ring.buffers[slot];
    VK_CHECK(vkResetCommandBuffer(buffer, 0));
    VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(buffer, &info));
    ring.current = slot;
    ring.next = (slot + 1) % static_cast<std::uint32_t>(ring.buffers.size());
    return buffer;
}

void submit_commands(const Device& device, CommandRing& ring, const SubmitOrder& order) {
    VkCommandBuffer buffer = ring.buffers[ring.current];
    VK_CHECK(vkEndCommandBuffer(buffer));
    submit_buffer(device, buffer, order);
    ring.done_at[ring.current] = order.signal_value;
}

void submit_buffer(const Device& device, VkCommandBuffer buffer, const SubmitOrder& order) {
    const bool waits = order.wait_value > 0;
    BATCHSIM_CHECK(!waits || order.wait_semaphore != VK_NULL_HANDLE, Internal,
                   "a submission waits for a value but names no semaphore");
    VkTimelineSemaphoreSubmitInfo timeline{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    timeline.waitSemaphoreValueCount = waits ? 1 : 0;
    timeline.pWaitSemaphoreValues = &order.wait_value;
    timeline.signalSemaphoreValueCount = 1;
    timeline.pSignalSemaphoreValues = &order.signal_value;

    const VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO, &timeline};
    info.waitSemaphoreCount = waits ? 1 : 0;
    info.pWaitSemaphores = &order.wait_semaphore;
    info.pWaitDstStageMask = &wait_stage;
    info.commandBufferCount = 1;
    info.pCommandBuffers = &buffer;
    info.signalSemaphoreCount = 1;
    info.pSignalSemaphores = &order.timeline;
    const std::lock_guard lock(*device.queue_mutex);
    VK_CHECK(vkQueueSubmit(device.queue, 1, &info, VK_NULL_HANDLE));
}

}  // namespace batchsim::vk
