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
// Frees memory from allocate_memory; a null handle is ignored.
void free_memory(const Device& device, VkDeviceMemory memory);
// Allocations made by allocate_memory and not yet freed, over every device of the process:
// what leak tests watch.
std::int64_t live_allocations();

}  // namespace batchsim::vk
