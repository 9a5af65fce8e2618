#include "vk/buffer.hpp"

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::vk {
namespace {

struct ExportSupport {
    bool exportable = false;
    bool dedicated_only = false;
};

ExportSupport query_export_support(const Device& device, VkBufferUsageFlags usage) {
    VkPhysicalDeviceExternalBufferInfo info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
    info.usage = usage;
    info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkExternalBufferProperties properties{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    vkGetPhysicalDeviceExternalBufferProperties(device.info.handle, &info, &properties);
    const auto features = properties.externalMemoryProperties.externalMemoryFeatures;
    return {(features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) != 0,
            (features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) != 0};
}

VkBuffer create_buffer_handle(const Device& device, const BufferDesc& desc,
                              VkBufferUsageFlags usage) {
    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.pNext = desc.exportable ? &external : nullptr;
    info.size = desc.size;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer handle = VK_NULL_HANDLE;
    VK_CHECK(vkCreateBuffer(device.handle, &info, nullptr, &handle));
    return handle;
}

}  // namespace

Buffer create_buffer(const Device& device, const BufferDesc& desc) {
    BATCHSIM_CHECK(desc.size > 0, InvalidArgument, "buffer size must be positive, got 0");
    BATCHSIM_CHECK(!desc.exportable || device.external_interop, Unsupported,
                   "exportable buffers need a device created with external interop");
    const VkBufferUsageFlags usage = desc.usage | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    ExportSupport support;
    if (desc.exportable) {
        support = query_export_support(device, usage);
        BATCHSIM_CHECK(
            support.exportable, Unsupported,
            str("device '", device.info.name, "' cannot export buffer memory as an opaque fd"));
    }

    Buffer buffer;
    buffer.size = desc.size;
    buffer.exportable = desc.exportable;
    buffer.dedicated = support.dedicated_only;
    buffer.handle = create_buffer_handle(device, desc, usage);
    try {
        MemoryRequest request;
        vkGetBufferMemoryRequirements(device.handle, buffer.handle, &request.requirements);
        request.location = desc.location;
        request.exportable = desc.exportable;
        if (buffer.dedicated) request.dedicated_buffer = buffer.handle;
        buffer.allocation_size = request.requirements.size;
        buffer.memory = allocate_memory(device, request);
        VK_CHECK(vkBindBufferMemory(device.handle, buffer.handle, buffer.memory, 0));
        if (desc.location == MemoryLocation::HostVisible)
            VK_CHECK(
                vkMapMemory(device.handle, buffer.memory, 0, VK_WHOLE_SIZE, 0, &buffer.mapped));
    } catch (...) {
        destroy_buffer(device, buffer);
        throw;
    }
    VkBufferDeviceAddressInfo address_info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    address_info.buffer = buffer.handle;
    buffer.address = vkGetBufferDeviceAddress(device.handle, &address_info);
    return buffer;
}

void destroy_buffer(const Device& device, Buffer& buffer) {
    if (buffer.mapped) vkUnmapMemory(device.handle, buffer.memory);
    if (buffer.handle != VK_NULL_HANDLE) vkDestroyBuffer(device.handle, buffer.handle, nullptr);
    free_memory(device, buffer.memory);
    buffer = Buffer{};
}

}  // namespace batchsim::vk
