// Buffers with their own memory, addressed from shaders by buffer device address.
#pragma once

#include <vulkan/vulkan_core.h>

#include "vk/device.hpp"
#include "vk/memory.hpp"

namespace batchsim::vk {

struct BufferDesc {
    VkDeviceSize size = 0;
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    MemoryLocation location = MemoryLocation::DeviceLocal;
    bool exportable = false;  // memory can be exported as an fd (CUDA import)
};

struct Buffer {
    VkBuffer handle = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;             // bytes requested
    VkDeviceSize allocation_size = 0;  // bytes allocated (what an fd importer must be told)
    VkDeviceAddress address = 0;       // for shaders (GL_EXT_buffer_reference)
    void* mapped = nullptr;            // persistent mapping of host-visible buffers
    bool exportable = false;
    bool dedicated = false;  // memory is a dedicated allocation (import flag)
};

Buffer create_buffer(const Device& device, const BufferDesc& desc);
void destroy_buffer(const Device& device, Buffer& buffer);

}  // namespace batchsim::vk
