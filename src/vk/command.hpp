// Command recording and submission: a small ring of reusable command buffers, each
// submission ordered by waiting for and signalling values of one timeline semaphore.
#pragma once

#include <cstdint>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "vk/device.hpp"

namespace batchsim::vk {

struct CommandRing {
    VkCommandPool pool = VK_NULL_HANDLE;
    std::vector<VkCommandBuffer> buffers;
    std::vector<std::uint64_t> done_at;  // timeline value that retires each buffer's last use
    std::uint32_t next = 0;
    std::uint32_t current = 0;
};

// What a submission waits for before it starts (wait_value 0: nothing) and the timeline
// value it signals at its end. The two are separate semaphores: only the queue signals
// `timeline`, so its values rise in submission order.
struct SubmitOrder {
    VkSemaphore timeline = VK_NULL_HANDLE;
    std::uint64_t signal_value = 0;
    VkSemaphore wait_semaphore = VK_NULL_HANDLE;
    std::uint64_t wait_value = 0;
};

CommandRing create_command_ring(const Device& device, std::uint32_t size);
void destroy_command_ring(const Device& device, CommandRing& ring);

// Waits until the next buffer's previous submission has retired, then begins recording.
VkCommandBuffer begin_commands(const Device& device, CommandRing& ring, VkSemaphore timeline);
// Ends the buffer returned by the last begin_commands and submits it to the device queue.
void submit_commands(const Device& device, CommandRing& ring, const SubmitOrder& order);
// Submits a finished command buffer (one recorded once and reused, say) to the device queue.
void submit_buffer(const Device& device, VkCommandBuffer buffer, const SubmitOrder& order);

}  // namespace batchsim::vk
