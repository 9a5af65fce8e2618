// The renderers' texture table (raster fragment stage, compute shading pass): per resident
// place, one descriptor set of BATCHSIM_MAX_TEXTURE_GROUPS combined image samplers holding
// that place's texture groups (2D array images, gpu_scene.hpp), the rest filled with a
// 1 x 1 white one-layer array (drivers without descriptor indexing need every slot written).
#pragma once

#include <cstdint>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "render/gpu_scene.hpp"
#include "vk/device.hpp"
#include "vk/image.hpp"

namespace batchsim::render {

struct TextureTable {
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    std::vector<VkDescriptorSet> sets;  // one per resident place
    vk::Image blank;                    // white, for unused slots
    VkSampler sampler = VK_NULL_HANDLE;
};

TextureTable create_texture_table(const vk::Device& device, std::uint32_t places);
void destroy_texture_table(const vk::Device& device, TextureTable& table);

// Points place `place`'s set at `scene`'s texture groups (null: none). The GPU must not be
// using the set. Packed scenes have at most as many groups as the table holds.
void bind_scene_textures(const vk::Device& device, TextureTable& table, std::uint32_t place,
                         const GpuScene* scene);

}  // namespace batchsim::render
