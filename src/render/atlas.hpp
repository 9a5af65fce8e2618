// The raster backend's render targets: every view of the batch is one tile of an atlas, so
// one pass draws them all. Linear depth and colour go to two colour targets whose tiles are
// then copied into the [N, ...] tensors; a reversed-depth z-buffer does the hiding.
#pragma once

#include <cstdint>

#include <vulkan/vulkan_core.h>

#include "device/tensor.hpp"
#include "vk/device.hpp"
#include "vk/image.hpp"

namespace batchsim::render {

inline constexpr VkFormat kDepthTargetFormat = VK_FORMAT_R32_SFLOAT;      // metres, 0 = nothing
inline constexpr VkFormat kColorTargetFormat = VK_FORMAT_R8G8B8A8_UNORM;  // sRGB-encoded bytes
inline constexpr VkFormat kZBufferFormat = VK_FORMAT_D32_SFLOAT;

// View v is tile (v mod tiles_x, v / tiles_x), each width x height pixels.
struct AtlasLayout {
    std::uint32_t tiles_x = 1;
    std::uint32_t tiles_y = 1;
    std::uint32_t tile_width = 1;
    std::uint32_t tile_height = 1;
    std::uint32_t width = 1;   // tiles_x * tile_width
    std::uint32_t height = 1;  // tiles_y * tile_height
    std::uint32_t views = 1;
};

// As square an atlas as the device's image size limit allows. Throws Error(Unsupported)
// when `views` tiles cannot fit.
AtlasLayout atlas_layout(const vk::Device& device, std::uint32_t views, std::uint32_t width,
                         std::uint32_t height);

// Which outputs a renderer writes.
struct AtlasOutputs {
    bool depth = true;
    bool rgb = true;
};

struct AtlasTargets {
    vk::Image depth;    // kDepthTargetFormat; no handle unless depth is an output
    vk::Image color;    // kColorTargetFormat; no handle unless rgb is an output
    vk::Image zbuffer;  // kZBufferFormat
};

AtlasTargets create_atlas_targets(const vk::Device& device, const AtlasLayout& layout,
                                  AtlasOutputs outputs);
void destroy_atlas_targets(const vk::Device& device, AtlasTargets& targets);

// Starts dynamic rendering into `area` of the atlas (what lies outside it is scratch and
// lost): depth target cleared to 0, colour to opaque black, z-buffer to 0 (far, reversed);
// the viewport spans the atlas, the scissor `area`. Waits for earlier submissions' copies
// out of the atlas and draws into it.
void begin_atlas_rendering(const vk::Device& device, VkCommandBuffer commands,
                           const AtlasTargets& targets, const AtlasLayout& layout,
                           const VkRect2D& area);
void end_atlas_rendering(const vk::Device& device, VkCommandBuffer commands);

// Copies tile v of the depth and colour targets to view v of `depth` ([N,1,H,W] float32)
// and `rgb` ([N,H,W,4] uint8) for views first..first+count-1, then makes the writes visible
// to the host. A null tensor (an output not rendered) is skipped.
void copy_atlas_to_tensors(const vk::Device& device, VkCommandBuffer commands,
                           const AtlasTargets& targets, const AtlasLayout& layout,
                           std::uint32_t first_view, std::uint32_t view_count,
                           const device::PersistentTensor* depth,
                           const device::PersistentTensor* rgb);

}  // namespace batchsim::render
