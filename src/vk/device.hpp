// The logical device: one compute queue, the features batchsim uses, optional CUDA interop.
#pragma once

#include <cstdint>

#include <vulkan/vulkan_core.h>

#include "vk/physical_device.hpp"

namespace batchsim::vk {

struct DeviceConfig {
    bool external_interop = false;  // enable memory/semaphore fd export (for CUDA)
};

struct Device {
    PhysicalDeviceInfo info;
    VkDevice handle = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    std::uint32_t queue_family = 0;
    bool external_interop = false;
    VkPhysicalDeviceMemoryProperties memory_properties{};
};

// Throws Unsupported naming the missing extensions if interop is asked for but absent.
Device create_device(const PhysicalDeviceInfo& physical, const DeviceConfig& config);
void destroy_device(Device& device);

}  // namespace batchsim::vk
