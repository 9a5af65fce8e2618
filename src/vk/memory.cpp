#include "vk/memory.hpp"

#include <atomic>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::vk {
namespace {

std::atomic<std::int64_t> g_live_allocations{0};

}  // namespace

namespace {

struct LocationFlags {
    VkMemoryPropertyFlags required;
    VkMemoryPropertyFlags preferred;
};

LocationFlags flags_for(MemoryLocation location) {
    if (location == MemoryLocation::HostVisible)  // cached: the CPU reads these buffers
        return {VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                VK_MEMORY_PROPERTY_HOST_CACHED_BIT};
    return {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0};
}

}  // namespace

std::uint32_t find_memory_type(const VkPhysicalDeviceMemoryProperties& properties,
                               std::uint32_t type_bits, VkMemoryPropertyFlags required,
                               VkMemoryPropertyFlags preferred) {
    std::int64_t fallback = -1;
    for (std::uint32_t i = 0; i < properties.memoryTypeCount; ++i) {
        const auto flags = properties.memoryTypes[i].propertyFlags;
        if (!(type_bits & (1u << i)) || (flags & required) != required) continue;
        if ((flags & preferred) == preferred) return i;
        if (fallback < 0) fallback = i;
    }
    BATCHSIM_CHECK(fallback >= 0, Unsupported,
                   str("no Vulkan memory type has property flags 0x", std::hex, required,
                       " among allowed types 0x", type_bits));
    return static_cast<std::uint32_t>(fallback);
}

VkDeviceMemory allocate_memory(const Device& device, const MemoryRequest& request) {
    const auto flags = flags_for(request.location);
    VkMemoryAllocateFlagsInfo address_info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
    address_info.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;

    VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    dedicated.buffer = request.dedicated_buffer;
    if (request.exportable) {
        address_info.pNext = &export_info;
        if (request.dedicated_buffer != VK_NULL_HANDLE) export_info.pNext = &dedicated;
    }

    VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &address_info};
    info.allocationSize = request.requirements.size;
    info.memoryTypeIndex =
        find_memory_type(device.memory_properties, request.requirements.memoryTypeBits,
                         flags.required, flags.preferred);
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VK_CHECK(vkAllocateMemory(device.handle, &info, nullptr, &memory));
    g_live_allocations.fetch_add(1, std::memory_order_relaxed);
    return memory;
}

void free_memory(const Device& device, VkDeviceMemory memory) {
    if (memory == VK_NULL_HANDLE) return;
    vkFreeMemory(device.handle, memory, nullptr);
    g_live_allocations.fetch_sub(1, std::memory_order_relaxed);
}

std::int64_t live_allocations() {
    return g_live_allocations.load(std::memory_order_relaxed);
}

}  // namespace batchsim::vk
