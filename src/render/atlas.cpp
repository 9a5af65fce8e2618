#include "render/atlas.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "vk/sync.hpp"

namespace batchsim::render {
namespace {

std::uint32_t max_image_dimension(const vk::Device& device) {
    VkPhysicalDeviceProperties properties{};
    vkGetPhysicalDeviceProperties(device.info.handle, &properties);
    return properties.limits.maxImageDimension2D;
}

VkRenderingAttachmentInfoKHR attachment(const vk::Image& image, VkImageLayout layout,
                                        VkClearValue clear) {
    VkRenderingAttachmentInfoKHR info{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO_KHR};
    info.imageView = image.view;
    info.imageLayout = layout;
    info.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    info.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    info.clearValue = clear;
    return info;
}

// One region per view: its tile of the atlas to its slice of a tightly packed tensor.
std::vector<VkBufferImageCopy> tile_regions(const AtlasLayout& layout, std::uint32_t first,
                                            std::uint32_t count, VkDeviceSize texel_bytes) {
    std::vector<VkBufferImageCopy> regions(count);
    const VkDeviceSize view_bytes =
        VkDeviceSize{layout.tile_width} * layout.tile_height * texel_bytes;
    for (std::uint32_t v = first; v < first + count; ++v) {
        VkBufferImageCopy& r = regions[v - first];
        r.bufferOffset = v * view_bytes;
        r.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        r.imageOffset = {static_cast<std::int32_t>((v % layout.tiles_x) * layout.tile_width),
                         static_cast<std::int32_t>((v / layout.tiles_x) * layout.tile_height), 0};
        r.imageExtent = {layout.tile_width, layout.tile_height, 1};
    }
    return regions;
}

}  // namespace

AtlasLayout atlas_layout(const vk::Device& device, std::uint32_t views, std::uint32_t width,
                         std::uint32_t height) {
    const std::uint32_t limit = max_image_dimension(device);
    AtlasLayout out{.tile_width = width, .tile_height = height, .views = views};
    // Near square in pixels: as many columns as sqrt(views * height / width), within limits.
    const double square = std::sqrt(double(views) * height / width);
    out.tiles_x = std::clamp<std::uint32_t>(static_cast<std::uint32_t>(std::ceil(square)), 1,
                                            std::max(limit / width, 1u));
    out.tiles_x = std::min(out.tiles_x, views);
    out.tiles_y = (views + out.tiles_x - 1) / out.tiles_x;
    out.width = out.tiles_x * width;
    out.height = out.tiles_y * height;
    BATCHSIM_CHECK(out.width <= limit && out.height <= limit, Unsupported,
                   str(views, " views of ", width, " x ", height, " need a ", out.width, " x ",
                       out.height, " atlas; this device allows ", limit, " x ", limit));
    return out;
}

AtlasTargets create_atlas_targets(const vk::Device& device, const AtlasLayout& layout,
                                  AtlasOutputs outputs) {
    const VkExtent2D extent{layout.width, layout.height};
    const VkImageUsageFlags color_usage =
        VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    AtlasTargets targets;
    try {
        if (outputs.depth)
            targets.depth = vk::create_image(
                device, {.format = kDepthTargetFormat, .extent = extent, .usage = color_usage});
        if (outputs.rgb)
            targets.color = vk::create_image(
                device, {.format = kColorTargetFormat, .extent = extent, .usage = color_usage});
        targets.zbuffer =
            vk::create_image(device, {.format = kZBufferFormat,
                                      .extent = extent,
                                      .usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                      .aspect = VK_IMAGE_ASPECT_DEPTH_BIT});
    } catch (...) {
        destroy_atlas_targets(device, targets);
        throw;
    }
    return targets;
}

void destroy_atlas_targets(const vk::Device& device, AtlasTargets& targets) {
    vk::destroy_image(device, targets.depth);
    vk::destroy_image(device, targets.color);
    vk::destroy_image(device, targets.zbuffer);
}

void begin_atlas_rendering(const vk::Device& device, VkCommandBuffer commands,
                           const AtlasTargets& targets, const AtlasLayout& layout,
                           const VkRect2D& area) {
    // Earlier contents are not needed: start from UNDEFINED, once earlier copies are done.
    VkClearValue nothing{};
    nothing.color = {{0.0f, 0.0f, 0.0f, 0.0f}};
    VkClearValue black{};
    black.color = {{0.0f, 0.0f, 0.0f, 1.0f}};
    std::vector<VkRenderingAttachmentInfoKHR> colors;
    for (const auto& [image, clear] :
         {std::pair{&targets.depth, nothing}, {&targets.color, black}}) {
        if (image->handle == VK_NULL_HANDLE) continue;
        vk::record_image_barrier(device, commands, *image,
                                 {.old_layout = VK_IMAGE_LAYOUT_UNDEFINED,
                                  .new_layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                  .src_stage = VK_PIPELINE_STAGE_2_COPY_BIT,
                                  .src_access = VK_ACCESS_2_NONE,
                                  .dst_stage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                  .dst_access = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT});
        colors.push_back(attachment(*image, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, clear));
    }
    vk::record_image_barrier(device, commands, targets.zbuffer,
                             {.old_layout = VK_IMAGE_LAYOUT_UNDEFINED,
                              .new_layout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                              .src_stage = VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                              .src_access = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                              .dst_stage = VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT,
                              .dst_access = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                                            VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT});
    VkClearValue far_depth{};
    far_depth.depthStencil = {0.0f, 0};
    const VkRenderingAttachmentInfoKHR depth =
        attachment(targets.zbuffer, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, far_depth);
    VkRenderingInfoKHR info{VK_STRUCTURE_TYPE_RENDERING_INFO_KHR};
    info.renderArea = area;
    info.layerCount = 1;
    info.colorAttachmentCount = static_cast<std::uint32_t>(colors.size());
    info.pColorAttachments = colors.data();
    info.pDepthAttachment = &depth;
    device.functions.cmd_begin_rendering(commands, &info);
    const VkViewport viewport{0.0f, 0.0f, float(layout.width), float(layout.height), 0.0f, 1.0f};
    vkCmdSetViewport(commands, 0, 1, &viewport);
    vkCmdSetScissor(commands, 0, 1, &area);
}

void end_atlas_rendering(const vk::Device& device, VkCommandBuffer commands) {
    device.functions.cmd_end_rendering(commands);
}

void copy_atlas_to_tensors(const vk::Device& device, VkCommandBuffer commands,
                           const AtlasTargets& targets, const AtlasLayout& layout,
                           std::uint32_t first_view, std::uint32_t view_count,
                           const device::PersistentTensor* depth,
                           const device::PersistentTensor* rgb) {
    const auto regions = tile_regions(layout, first_view, view_count, 4);  // both 4-byte texels
    for (const auto& [image, tensor] : {std::pair{&targets.depth, depth}, {&targets.color, rgb}}) {
        if (image->handle == VK_NULL_HANDLE || tensor == nullptr) continue;
        vk::record_image_barrier(device, commands, *image,
                                 {.old_layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                  .new_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                  .src_stage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                  .src_access = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                                  .dst_stage = VK_PIPELINE_STAGE_2_COPY_BIT,
                                  .dst_access = VK_ACCESS_2_TRANSFER_READ_BIT});
        vkCmdCopyImageToBuffer(commands, image->handle, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               tensor->vk_buffer(), view_count, regions.data());
    }
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                         &barrier, 0, nullptr, 0, nullptr);
}

}  // namespace batchsim::render
