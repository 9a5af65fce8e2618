#include "vk/image.hpp"

#include <algorithm>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "vk/memory.hpp"

namespace batchsim::vk {
namespace {

void check_image_desc(const Device& device, const ImageDesc& desc) {
    BATCHSIM_CHECK(desc.extent.width > 0 && desc.extent.height > 0 && desc.layers > 0,
                   InvalidArgument,
                   str("image size must be positive, got ", desc.extent.width, "x",
                       desc.extent.height, " with ", desc.layers, " layers"));
    BATCHSIM_CHECK(desc.mip_levels >= 1 && desc.mip_levels <= mip_levels_for(desc.extent),
                   InvalidArgument,
                   str("a ", desc.extent.width, "x", desc.extent.height, " image has 1 to ",
                       mip_levels_for(desc.extent), " mip levels, got ", desc.mip_levels));
    VkImageFormatProperties limits{};
    const VkResult result =
        vkGetPhysicalDeviceImageFormatProperties(device.info.handle, desc.format, VK_IMAGE_TYPE_2D,
                                                 VK_IMAGE_TILING_OPTIMAL, desc.usage, 0, &limits);
    BATCHSIM_CHECK(result == VK_SUCCESS, Unsupported,
                   str("device '", device.info.name, "' cannot create images of format ",
                       desc.format, " with usage 0x", std::hex, desc.usage));
    BATCHSIM_CHECK(desc.extent.width <= limits.maxExtent.width &&
                       desc.extent.height <= limits.maxExtent.height &&
                       desc.layers <= limits.maxArrayLayers,
                   Unsupported,
                   str("device '", device.info.name, "' cannot create a ", desc.extent.width, "x",
                       desc.extent.height, " image with ", desc.layers, " layers (limit ",
                       limits.maxExtent.width, "x", limits.maxExtent.height, ", ",
                       limits.maxArrayLayers, " layers)"));
}

VkImage create_image_handle(const Device& device, const ImageDesc& desc) {
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = desc.format;
    info.extent = {desc.extent.width, desc.extent.height, 1};
    info.mipLevels = desc.mip_levels;
    info.arrayLayers = desc.layers;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = desc.usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkImage handle = VK_NULL_HANDLE;
    VK_CHECK(vkCreateImage(device.handle, &info, nullptr, &handle));
    return handle;
}

VkImageView create_view(const Device& device, const Image& image) {
    VkImageViewCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    info.image = image.handle;
    info.viewType = image.array_view ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D;
    info.format = image.format;
    info.subresourceRange = {image.aspect, 0, image.mip_levels, 0, image.layers};
    VkImageView view = VK_NULL_HANDLE;
    VK_CHECK(vkCreateImageView(device.handle, &info, nullptr, &view));
    return view;
}

}  // namespace

Image create_image(const Device& device, const ImageDesc& desc) {
    check_image_desc(device, desc);
    Image image;
    image.format = desc.format;
    image.extent = desc.extent;
    image.mip_levels = desc.mip_levels;
    image.layers = desc.layers;
    image.array_view = desc.layers > 1 || desc.array_view;
    image.aspect = desc.aspect;
    image.handle = create_image_handle(device, desc);
    try {
        MemoryRequest request;
        vkGetImageMemoryRequirements(device.handle, image.handle, &request.requirements);
        request.location = MemoryLocation::DeviceLocal;
        image.bytes = request.requirements.size;
        image.memory = allocate_memory(device, request);
        VK_CHECK(vkBindImageMemory(device.handle, image.handle, image.memory, 0));
        image.view = create_view(device, image);
    } catch (...) {
        destroy_image(device, image);
        throw;
    }
    return image;
}

void destroy_image(const Device& device, Image& image) {
    if (image.view != VK_NULL_HANDLE) vkDestroyImageView(device.handle, image.view, nullptr);
    if (image.handle != VK_NULL_HANDLE) vkDestroyImage(device.handle, image.handle, nullptr);
    free_memory(device, image.memory);
    image = Image{};
}

std::uint32_t mip_levels_for(VkExtent2D extent) {
    std::uint32_t levels = 1;
    for (std::uint32_t size = std::max(extent.width, extent.height); size > 1; size /= 2) ++levels;
    return levels;
}

VkExtent2D mip_extent(VkExtent2D extent, std::uint32_t level) {
    return {std::max(extent.width >> level, 1u), std::max(extent.height >> level, 1u)};
}

VkSampler create_sampler(const Device& device, const SamplerDesc& desc) {
    VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    info.magFilter = VK_FILTER_LINEAR;
    info.minFilter = VK_FILTER_LINEAR;
    info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR;
    info.addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT;
    info.addressModeV = VK_SAMPLER_ADDRESS_MODE_REPEAT;
    info.addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT;
    const float anisotropy = std::min(desc.max_anisotropy, device.features.max_sampler_anisotropy);
    info.anisotropyEnable = device.features.sampler_anisotropy && anisotropy > 1.0f;
    info.maxAnisotropy = info.anisotropyEnable ? anisotropy : 1.0f;
    info.minLod = 0.0f;
    info.maxLod = VK_LOD_CLAMP_NONE;
    VkSampler sampler = VK_NULL_HANDLE;
    VK_CHECK(vkCreateSampler(device.handle, &info, nullptr, &sampler));
    return sampler;
}

void destroy_sampler(const Device& device, VkSampler& sampler) {
    if (sampler != VK_NULL_HANDLE) vkDestroySampler(device.handle, sampler, nullptr);
    sampler = VK_NULL_HANDLE;
}

}  // namespace batchsim::vk
