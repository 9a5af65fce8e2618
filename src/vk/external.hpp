// Exporting Vulkan memory and semaphores as POSIX file descriptors for other APIs (CUDA).
#pragma once

#include <vulkan/vulkan_core.h>

#include "vk/device.hpp"

namespace batchsim::vk {

// Each call returns a new fd; the caller owns it (an importer such as CUDA takes it over).
int export_memory_fd(const Device& device, VkDeviceMemory memory);
int export_semaphore_fd(const Device& device, VkSemaphore semaphore);

}  // namespace batchsim::vk
