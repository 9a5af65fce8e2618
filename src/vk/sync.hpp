// Timeline semaphores: the one synchronisation primitive batchsim uses between the CPU,
// Vulkan queues and (through an exported fd) CUDA streams.
#pragma once

#include <chrono>
#include <cstdint>

#include <vulkan/vulkan_core.h>

#include "vk/device.hpp"

namespace batchsim::vk {

// How long a host wait may take before it is reported as a hang rather than waited out.
inline constexpr std::chrono::seconds kHostWaitTimeout{120};

VkSemaphore create_timeline_semaphore(const Device& device, bool exportable);
void destroy_semaphore(const Device& device, VkSemaphore& semaphore);

// Blocks until the semaphore reaches `value`; throws Error(Vulkan) after kHostWaitTimeout.
void wait_timeline(const Device& device, VkSemaphore semaphore, std::uint64_t value);

}  // namespace batchsim::vk
