// The download half of vk/upload.hpp: reads buffers and image levels back through an
// Uploader's staging buffer, on the main queue.
#include "vk/upload.hpp"

#include <algorithm>
#include <cstring>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "vk/sync.hpp"
#include "vk/transfer_pass.hpp"

namespace batchsim::vk {
using namespace detail;

std::vector<std::uint8_t> download_buffer(const Device& device, Uploader& uploader,
                                          const Buffer& src, VkDeviceSize offset,
                                          VkDeviceSize size) {
    BATCHSIM_CHECK(
        offset <= src.size && size <= src.size - offset, InvalidArgument,
        str("cannot read ", size, " bytes at offset ", offset, " of a ", src.size, "-byte buffer"));
    std::vector<std::uint8_t> out(size);
    for (VkDeviceSize done = 0; done < size;) {
        const VkDeviceSize chunk = std::min<VkDeviceSize>(uploader.staging.size, size - done);
        VkCommandBuffer commands = begin_pass(device, uploader, false);
        record_buffer_barrier(device, commands, src,
                              {VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT,
                               VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT});
        const VkBufferCopy region{offset + done, 0, chunk};
        vkCmdCopyBuffer(commands, src.handle, uploader.staging.handle, 1, &region);
        copy_to_host_barrier(device, commands, uploader.staging);
        finish_pass(device, uploader, false);
        std::memcpy(out.data() + done, staging_bytes(uploader), chunk);
        done += chunk;
    }
    return out;
}

std::vector<std::uint8_t> download_image_level(const Device& device, Uploader& uploader,
                                               const Image& image, std::uint32_t level,
                                               std::uint32_t layer) {
    check_copyable_image(uploader, image);
    BATCHSIM_CHECK(level < image.mip_levels && layer < image.layers, InvalidArgument,
                   str("image has ", image.mip_levels, " mip levels and ", image.layers,
                       " layers, asked for level ", level, " of layer ", layer));
    std::vector<std::uint8_t> out(level_bytes(image, level));
    const VkDeviceSize row = row_bytes(image, level);
    const ImageBarrier to_source{.old_layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                 .new_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                 .src_stage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,  // shader reads
                                 .dst_stage = VK_PIPELINE_STAGE_2_COPY_BIT,
                                 .dst_access = VK_ACCESS_2_TRANSFER_READ_BIT,
                                 .base_mip = level,
                                 .mip_count = 1};
    const ImageBarrier back{.old_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                            .new_layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                            .src_stage = VK_PIPELINE_STAGE_2_COPY_BIT,
                            .dst_stage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                            .dst_access = VK_ACCESS_2_SHADER_READ_BIT,
                            .base_mip = level,
                            .mip_count = 1};
    for (auto batch :
         plan_rows(image.extent, level, 1, uploader.staging.size, 1, texel_block(image.format))) {
        for (RowSpan& span : batch) span.layer = layer;
        VkCommandBuffer commands = begin_pass(device, uploader, false);
        record_image_barrier(device, commands, image, to_source);
        std::vector<VkBufferImageCopy> regions(batch.size());
        for (std::size_t i = 0; i < batch.size(); ++i) regions[i] = image_region(image, batch[i]);
        vkCmdCopyImageToBuffer(commands, image.handle, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               uploader.staging.handle, static_cast<std::uint32_t>(regions.size()),
                               regions.data());
        record_image_barrier(device, commands, image, back);
        copy_to_host_barrier(device, commands, uploader.staging);
        finish_pass(device, uploader, false);
        for (const RowSpan& span : batch)
            std::memcpy(out.data() + span.y * row, staging_bytes(uploader) + span.staging_offset,
                        span.rows * row);
    }
    return out;
}

std::vector<std::uint8_t> download_buffer(const Device& device, const Buffer& src,
                                          VkDeviceSize offset, VkDeviceSize size) {
    return with_uploader(device, size, [&](Uploader& uploader) {
        return download_buffer(device, uploader, src, offset, size);
    });
}

std::vector<std::uint8_t> download_image_level(const Device& device, const Image& image,
                                               std::uint32_t level, std::uint32_t layer) {
    return with_uploader(device, std::max(row_bytes(image, 0), level_bytes(image, level)),
                         [&](Uploader& uploader) {
                             return download_image_level(device, uploader, image, level, layer);
                         });
}

}  // namespace batchsim::vk
