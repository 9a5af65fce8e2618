// Images with their own device-local memory and a view of all their levels and layers,
// samplers, and layout transitions recorded with synchronization2.
#pragma once

#include <cstdint>

#include <vulkan/vulkan_core.h>

#include "vk/device.hpp"

namespace batchsim::vk {

struct ImageDesc {
    VkFormat format = VK_FORMAT_R8G8B8A8_SRGB;
    VkExtent2D extent{0, 0};
    std::uint32_t mip_levels = 1;
    std::uint32_t layers = 1;  // > 1: the view is a 2D array
    VkImageUsageFlags usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT;
};

// Optimal tiling, exclusive to one queue family at a time, created in UNDEFINED layout.
struct Image {
    VkImage handle = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkExtent2D extent{0, 0};
    std::uint32_t mip_levels = 0;
    std::uint32_t layers = 0;
    VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT;
    VkDeviceSize bytes = 0;  // device memory allocated for it
};

// Throws InvalidArgument on an empty extent or more mips than the extent has, Unsupported
// when the device cannot create such an image.
Image create_image(const Device& device, const ImageDesc& desc);
void destroy_image(const Device& device, Image& image);

// floor(log2(max(width, height))) + 1.
std::uint32_t mip_levels_for(VkExtent2D extent);
// Extent of mip `level` (each dimension halved per level, at least 1).
VkExtent2D mip_extent(VkExtent2D extent, std::uint32_t level);

struct SamplerDesc {
    // Up to this many samples for anisotropic filtering, clamped to the device limit; only
    // used when the device enables samplerAnisotropy; 1 turns it off. The renderers default
    // to plain trilinear filtering, which is what the CPU reference (and its tests) define;
    // implementations approximate anisotropy differently (lavapipe also lowers the level of
    // detail of nearly isotropic footprints).
    float max_anisotropy = 1.0f;
};

// Linear filtering, linear between mips, repeat addressing, every mip level.
VkSampler create_sampler(const Device& device, const SamplerDesc& desc);
void destroy_sampler(const Device& device, VkSampler& sampler);

// One image barrier over `mip_count` levels from `base_mip` and all layers. Queue family
// indices other than VK_QUEUE_FAMILY_IGNORED make it half of an ownership transfer.
struct ImageBarrier {
    VkImageLayout old_layout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkImageLayout new_layout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkPipelineStageFlags2 src_stage = VK_PIPELINE_STAGE_2_NONE;
    VkAccessFlags2 src_access = VK_ACCESS_2_NONE;
    VkPipelineStageFlags2 dst_stage = VK_PIPELINE_STAGE_2_NONE;
    VkAccessFlags2 dst_access = VK_ACCESS_2_NONE;
    std::uint32_t src_family = VK_QUEUE_FAMILY_IGNORED;
    std::uint32_t dst_family = VK_QUEUE_FAMILY_IGNORED;
    std::uint32_t base_mip = 0;
    std::uint32_t mip_count = VK_REMAINING_MIP_LEVELS;
};

// Records `barrier` with vkCmdPipelineBarrier2; the device must enable synchronization2.
void record_image_barrier(const Device& device, VkCommandBuffer commands, const Image& image,
                          const ImageBarrier& barrier);

}  // namespace batchsim::vk
