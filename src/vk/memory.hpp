// Device memory: choosing a memory type and allocating (optionally exportable) memory.
#pragma once

#include <cstdint>

#include <vulkan/vulkan_core.h>

#include "vk/device.hpp"

namespace batchsim::vk {

enum class MemoryLocation {
    HostVisible,  // mapped persistently; the CPU reads results in place (DLPack kDLCPU)
    DeviceLocal,  // GPU memory; shared with CUDA when exportable (DLPack kDLCUDA)
};

struct MemoryRequest {
    VkMemoryRequirements requirements{};
    MemoryLocation location = MemoryLocation::DeviceLocal;
    bool exportable = false;                     // as an opaque POSIX fd
    VkBuffer dedicated_buffer = VK_NULL_HANDLE;  // set when the driver demands dedication
};

// Index of a memory type in `type_bits` with all `required` flags, preferring `preferred`.
// Throws Unsupported when none fits.
std::uint32_t find_memory_type(const VkPhysicalDeviceMemoryProperties& properties,
                               std::uint32_t type_bits, VkMemoryPropertyFlags required,
                               VkMemoryPropertyFlags preferred);

// Allocates memory usable with buffer device addresses.
VkDeviceMemory allocate_memory(const Device& device, const MemoryRequest& request);

}  // namespace batchsim::vk
