// Images with their own device-local memory and a view of all their levels and layers,
// and samplers. Layout transitions (image barriers) are in vk/sync.hpp.
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
    bool array_view = false;   // a 2D array view even with one layer (for sampler2DArray)
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
    bool array_view = false;  // the view is a 2D array (layers > 1 or ImageDesc::array_view)
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

}  // namespace batchsim::vk
