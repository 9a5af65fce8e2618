#include "render/draw_buffers.hpp"

#include <algorithm>

#include "core/check.hpp"
#include "shared.h"

namespace batchsim::render {

vk::Buffer device_buffer(const vk::Device& device, VkDeviceSize size, VkBufferUsageFlags usage) {
    return vk::create_buffer(device, {.size = std::max<VkDeviceSize>(size, 4),
                                      .usage = usage | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                      .location = vk::MemoryLocation::DeviceLocal});
}

PlaceDraws create_draws(const vk::Device& device, std::uint64_t max_draws, std::uint32_t chunks,
                        std::uint32_t batches) {
    PlaceDraws draws;
    draws.chunks = chunks;
    draws.commands = device_buffer(device, max_draws * sizeof(gpu::DrawCommand),
                                   VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT);
    draws.infos = device_buffer(device, max_draws * sizeof(gpu::DrawInfo), 0);
    draws.count =
        device_buffer(device, VkDeviceSize{batches} * 4,
                      VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    return draws;
}

void destroy_draws(const vk::Device& device, PlaceDraws& draws) {
    vk::destroy_buffer(device, draws.commands);
    vk::destroy_buffer(device, draws.infos);
    vk::destroy_buffer(device, draws.count);
    draws = PlaceDraws{};
}

VkCommandPool create_command_pool(const vk::Device& device) {
    VkCommandPoolCreateInfo info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    info.queueFamilyIndex = device.queue_family;
    VkCommandPool pool = VK_NULL_HANDLE;
    VK_CHECK(vkCreateCommandPool(device.handle, &info, nullptr, &pool));
    return pool;
}

std::vector<VkCommandBuffer> allocate_commands(const vk::Device& device, VkCommandPool pool,
                                               std::uint32_t count) {
    std::vector<VkCommandBuffer> buffers(count);
    VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    info.commandPool = pool;
    info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    info.commandBufferCount = count;
    VK_CHECK(vkAllocateCommandBuffers(device.handle, &info, buffers.data()));
    return buffers;
}

}  // namespace batchsim::render
