// The culling pass's output buffers for one resident place and the command buffers the
// renderer records once: small helpers BatchRenderer builds on.
#pragma once

#include <cstdint>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "vk/buffer.hpp"
#include "vk/device.hpp"

namespace batchsim::render {

// The culling pass's output for one resident place, for every view of the renderer.
// Batch b's draws are the ranges of views first..first+count-1: DrawCommand and DrawInfo
// from first * chunks, its counter at count[b].
struct PlaceDraws {
    vk::Buffer commands;  // DrawCommand[views * chunks]
    vk::Buffer infos;     // DrawInfo[views * chunks]
    vk::Buffer count;     // uint[batches]
    std::uint32_t chunks = 0;
};

// A device-local storage buffer of at least 4 bytes with extra `usage`.
vk::Buffer device_buffer(const vk::Device& device, VkDeviceSize size, VkBufferUsageFlags usage);

PlaceDraws create_draws(const vk::Device& device, std::uint64_t max_draws, std::uint32_t chunks,
                        std::uint32_t batches);
void destroy_draws(const vk::Device& device, PlaceDraws& draws);

// A pool on the main queue's family whose buffers are recorded once and submitted often.
VkCommandPool create_command_pool(const vk::Device& device);
std::vector<VkCommandBuffer> allocate_commands(const vk::Device& device, VkCommandPool pool,
                                               std::uint32_t count);

}  // namespace batchsim::render
