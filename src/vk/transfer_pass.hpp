// Internal to src/vk: the pieces upload.cpp and download.cpp share. A pass is one command
// buffer of staged copies, begun and finished on an Uploader; images are copied in batches of
// rows that fit its staging buffer. Only those two files include this header.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "vk/buffer.hpp"
#include "vk/device.hpp"
#include "vk/image.hpp"
#include "vk/upload.hpp"

namespace batchsim::vk::detail {

constexpr VkDeviceSize kTexelBytes = 4;  // RGBA8: the smallest unit a staging buffer holds
constexpr VkAccessFlags2 kAnyAccess = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;

inline std::uint8_t* staging_bytes(const Uploader& uploader) {
    return static_cast<std::uint8_t*>(uploader.staging.mapped);
}

// Copies recorded on the transfer queue (`on_transfer`) or the main queue.
VkCommandBuffer begin_pass(const Device& device, Uploader& uploader, bool on_transfer);

// Submits the pass begun by begin_pass; `acquire`, when given, records the main queue's half
// of an ownership transfer, submitted after the pass. Waits until all of it has run.
void finish_pass(const Device& device, Uploader& uploader, bool on_transfer,
                 const std::function<void(VkCommandBuffer)>& acquire = {});

// The unit image copies move: one texel of RGBA8, a 4x4 block of BC1. Rows below are rows
// of these blocks (4 texel rows each for BC1).
struct TexelBlock {
    std::uint32_t width = 1;
    std::uint32_t height = 1;
    VkDeviceSize bytes = kTexelBytes;
};

// Throws InvalidArgument for a format image copies do not handle (RGBA8 and BC1 they do).
TexelBlock texel_block(VkFormat format);

// Blocks across and down a level of `size` texels.
inline VkExtent2D block_extent(VkExtent2D size, TexelBlock block) {
    return {(size.width + block.width - 1) / block.width,
            (size.height + block.height - 1) / block.height};
}

// Bytes of one row of blocks of mip `level`.
inline VkDeviceSize row_bytes(const Image& image, std::uint32_t level) {
    const TexelBlock block = texel_block(image.format);
    return VkDeviceSize{block_extent(mip_extent(image.extent, level), block).width} * block.bytes;
}

// A run of block rows of one mip level of one layer and where it lies in the staging buffer.
struct RowSpan {
    std::uint32_t layer = 0;
    std::uint32_t level = 0;
    std::uint32_t y = 0;
    std::uint32_t rows = 0;
    VkDeviceSize staging_offset = 0;
};

// Splits the block rows of levels [first, first + count) of layers [0, layers) into batches
// that each fit the staging buffer, packing small levels (and layers) together.
std::vector<std::vector<RowSpan>> plan_rows(VkExtent2D extent, std::uint32_t first,
                                            std::uint32_t count, VkDeviceSize staging,
                                            std::uint32_t layers = 1, TexelBlock block = {});

// The copy of `span`'s rows; the last block row of a level may be cut by the level's edge
// (Vulkan takes the level's extent there, not a whole block).
inline VkBufferImageCopy image_region(const Image& image, const RowSpan& span) {
    const VkExtent2D size = mip_extent(image.extent, span.level);
    const TexelBlock block = texel_block(image.format);
    const std::uint32_t top = span.y * block.height;
    VkBufferImageCopy region{};
    region.bufferOffset = span.staging_offset;
    region.imageSubresource = {image.aspect, span.level, span.layer, 1};
    region.imageOffset = {0, static_cast<std::int32_t>(top), 0};
    region.imageExtent = {size.width, std::min(span.rows * block.height, size.height - top), 1};
    return region;
}

inline VkDeviceSize level_bytes(const Image& image, std::uint32_t level) {
    const TexelBlock block = texel_block(image.format);
    const VkExtent2D blocks = block_extent(mip_extent(image.extent, level), block);
    return VkDeviceSize{blocks.width} * blocks.height * block.bytes;
}

// Throws InvalidArgument unless image copies handle `image` (its format, a row of blocks of
// level 0 within the staging buffer) with this uploader.
void check_copyable_image(const Uploader& uploader, const Image& image);

// A temporary uploader no larger than the copy needs.
template <typename Copy>
auto with_uploader(const Device& device, VkDeviceSize bytes, Copy copy) {
    Uploader uploader =
        create_uploader(device, std::clamp<VkDeviceSize>(bytes, kTexelBytes, kDefaultStagingBytes));
    try {
        if constexpr (std::is_void_v<decltype(copy(uploader))>) {
            copy(uploader);
            destroy_uploader(device, uploader);
        } else {
            auto result = copy(uploader);
            destroy_uploader(device, uploader);
            return result;
        }
    } catch (...) {
        destroy_uploader(device, uploader);
        throw;
    }
}

}  // namespace batchsim::vk::detail
