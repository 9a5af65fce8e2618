#include "vk/upload.hpp"

#include <algorithm>
#include <cstring>
#include <functional>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "vk/sync.hpp"
#include "vk/transfer_pass.hpp"

namespace batchsim::vk {
using namespace detail;
namespace {

VkCommandPool create_pool(const Device& device, std::uint32_t family, VkCommandBuffer& commands) {
    VkCommandPoolCreateInfo info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    info.queueFamilyIndex = family;
    VkCommandPool pool = VK_NULL_HANDLE;
    VK_CHECK(vkCreateCommandPool(device.handle, &info, nullptr, &pool));
    VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    allocate.commandPool = pool;
    allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    allocate.commandBufferCount = 1;
    VK_CHECK(vkAllocateCommandBuffers(device.handle, &allocate, &commands));
    return pool;
}

VkCommandBuffer begin(const Device& device, VkCommandPool pool, VkCommandBuffer commands) {
    VK_CHECK(vkResetCommandPool(device.handle, pool, 0));
    VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(commands, &info));
    return commands;
}

// Ends `commands` and submits it to `queue` after the uploader's previous submission,
// signalling the next timeline value.
void submit(const Device& device, Uploader& uploader, VkQueue queue, VkCommandBuffer commands) {
    VK_CHECK(vkEndCommandBuffer(commands));
    const std::uint64_t wait_value = uploader.last_value;
    const std::uint64_t signal_value = uploader.last_value + 1;
    VkTimelineSemaphoreSubmitInfo timeline{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    timeline.waitSemaphoreValueCount = 1;
    timeline.pWaitSemaphoreValues = &wait_value;
    timeline.signalSemaphoreValueCount = 1;
    timeline.pSignalSemaphoreValues = &signal_value;
    const VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO, &timeline};
    info.waitSemaphoreCount = 1;
    info.pWaitSemaphores = &uploader.timeline;
    info.pWaitDstStageMask = &wait_stage;
    info.commandBufferCount = 1;
    info.pCommandBuffers = &commands;
    info.signalSemaphoreCount = 1;
    info.pSignalSemaphores = &uploader.timeline;
    {
        const std::lock_guard lock(*device.queue_mutex);
        VK_CHECK(vkQueueSubmit(queue, 1, &info, VK_NULL_HANDLE));
    }
    uploader.last_value = signal_value;
}

}  // namespace

namespace detail {

VkCommandBuffer begin_pass(const Device& device, Uploader& uploader, bool on_transfer) {
    return on_transfer ? begin(device, uploader.transfer_pool, uploader.transfer_commands)
                       : begin(device, uploader.main_pool, uploader.main_commands);
}

void finish_pass(const Device& device, Uploader& uploader, bool on_transfer,
                 const std::function<void(VkCommandBuffer)>& acquire) {
    if (on_transfer) {
        submit(device, uploader, device.transfer_queue, uploader.transfer_commands);
    } else {
        submit(device, uploader, device.queue, uploader.main_commands);
    }
    if (acquire) {
        VkCommandBuffer commands = begin(device, uploader.main_pool, uploader.main_commands);
        acquire(commands);
        submit(device, uploader, device.queue, commands);
    }
    wait_timeline(device, uploader.timeline, uploader.last_value,
                  "an upload (scene or texture data)");
}

TexelBlock texel_block(VkFormat format) {
    switch (format) {
        case VK_FORMAT_R8G8B8A8_SRGB:
        case VK_FORMAT_R8G8B8A8_UNORM: return {};
        case VK_FORMAT_BC1_RGB_SRGB_BLOCK:
        case VK_FORMAT_BC1_RGB_UNORM_BLOCK:
        case VK_FORMAT_BC1_RGBA_SRGB_BLOCK:
        case VK_FORMAT_BC1_RGBA_UNORM_BLOCK: return {4, 4, 8};
        default:
            throw Error(Error::Kind::InvalidArgument,
                        str("image copies handle RGBA8 and BC1 images, got format ", format));
    }
}

std::vector<std::vector<RowSpan>> plan_rows(VkExtent2D extent, std::uint32_t first,
                                            std::uint32_t count, VkDeviceSize staging,
                                            std::uint32_t layers, TexelBlock block) {
    std::vector<std::vector<RowSpan>> batches(1);
    VkDeviceSize used = 0;
    for (std::uint32_t layer = 0; layer < layers; ++layer) {
        for (std::uint32_t level = first; level < first + count; ++level) {
            const VkExtent2D size = block_extent(mip_extent(extent, level), block);
            const VkDeviceSize row = VkDeviceSize{size.width} * block.bytes;
            for (std::uint32_t y = 0; y < size.height;) {
                if (staging - used < row) {
                    batches.emplace_back();
                    used = 0;
                }
                const auto rows = static_cast<std::uint32_t>(
                    std::min<VkDeviceSize>(size.height - y, (staging - used) / row));
                batches.back().push_back({layer, level, y, rows, used});
                used += rows * row;
                y += rows;
            }
        }
    }
    return batches;
}

void check_copyable_image(const Uploader& uploader, const Image& image) {
    BATCHSIM_CHECK(row_bytes(image, 0) <= uploader.staging.size, InvalidArgument,
                   str("a row of a ", image.extent.width, " texel wide image does not fit the ",
                       uploader.staging.size, "-byte staging buffer"));
}

}  // namespace detail

namespace {

// Ends a transfer-queue pass that wrote `buffer` by moving it to the main queue family.
void hand_off_buffer(const Device& device, Uploader& uploader, VkCommandBuffer commands,
                     const Buffer& buffer) {
    const BufferBarrier release{.src_stage = VK_PIPELINE_STAGE_2_COPY_BIT,
                                .src_access = VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                .src_family = device.transfer_family,
                                .dst_family = device.queue_family};
    BufferBarrier acquire = release;
    acquire.src_stage = VK_PIPELINE_STAGE_2_NONE;
    acquire.src_access = VK_ACCESS_2_NONE;
    acquire.dst_stage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    acquire.dst_access = kAnyAccess;
    record_buffer_barrier(device, commands, buffer, release);
    finish_pass(device, uploader, true, [&](VkCommandBuffer main) {
        record_buffer_barrier(device, main, buffer, acquire);
    });
}

// Copies the rows of `batch` into the staging buffer; returns their copy regions.
std::vector<VkBufferImageCopy> stage_rows(const Uploader& uploader, const Image& image,
                                          std::span<const std::span<const std::uint8_t>> levels,
                                          const std::vector<RowSpan>& batch) {
    std::vector<VkBufferImageCopy> regions;
    regions.reserve(batch.size());
    for (const RowSpan& span : batch) {
        const VkDeviceSize row = row_bytes(image, span.level);
        const auto& level = levels[std::size_t{span.layer} * image.mip_levels + span.level];
        std::memcpy(staging_bytes(uploader) + span.staging_offset, level.data() + span.y * row,
                    span.rows * row);
        regions.push_back(image_region(image, span));
    }
    return regions;
}

// The barrier that hands a freshly uploaded image to shaders on the main queue: the whole
// transition when the copies ran there, else one half of the ownership transfer.
ImageBarrier image_ready_barrier(const Device& device, bool release, bool acquire) {
    ImageBarrier b;
    b.old_layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    b.new_layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    if (!acquire) {
        b.src_stage = VK_PIPELINE_STAGE_2_COPY_BIT;
        b.src_access = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    }
    if (!release) {
        b.dst_stage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        b.dst_access = VK_ACCESS_2_SHADER_READ_BIT;
    }
    if (release || acquire) {
        b.src_family = device.transfer_family;
        b.dst_family = device.queue_family;
    }
    return b;
}

// Every layer's whole mip chain, each level tightly packed.
void check_levels(const Image& image, std::span<const std::span<const std::uint8_t>> levels) {
    const std::size_t expected = std::size_t{image.mip_levels} * image.layers;
    BATCHSIM_CHECK(levels.size() == expected, InvalidArgument,
                   str("image needs ", expected, " levels (", image.layers, " layers x ",
                       image.mip_levels, " mips), got ", levels.size()));
    for (std::size_t i = 0; i < levels.size(); ++i) {
        const auto level = static_cast<std::uint32_t>(i % image.mip_levels);
        BATCHSIM_CHECK(levels[i].size() == level_bytes(image, level), InvalidArgument,
                       str("mip level ", level, " needs ", level_bytes(image, level),
                           " bytes, got ", levels[i].size()));
    }
}

VkDeviceSize chain_bytes(std::span<const std::span<const std::uint8_t>> levels) {
    VkDeviceSize total = 0;
    for (const auto& level : levels) total += level.size();
    return total;
}

}  // namespace

Uploader create_uploader(const Device& device, VkDeviceSize staging_bytes) {
    BATCHSIM_CHECK(device.features.synchronization2, Unsupported,
                   str("device '", device.info.name, "' lacks synchronization2"));
    BATCHSIM_CHECK(
        staging_bytes >= kTexelBytes, InvalidArgument,
        str("staging buffers hold at least ", kTexelBytes, " bytes, got ", staging_bytes));
    Uploader uploader;
    try {
        uploader.staging = create_buffer(
            device, {.size = staging_bytes,
                     .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                     .location = MemoryLocation::HostVisible});
        uploader.transfer_pool =
            create_pool(device, device.transfer_family, uploader.transfer_commands);
        uploader.main_pool = create_pool(device, device.queue_family, uploader.main_commands);
        uploader.timeline = create_timeline_semaphore(device, false);
    } catch (...) {
        destroy_uploader(device, uploader);
        throw;
    }
    return uploader;
}

bool uploader_busy(const Device& device, const Uploader& uploader) noexcept {
    if (uploader.timeline == VK_NULL_HANDLE || uploader.last_value == 0) return false;
    std::uint64_t reached = 0;
    const VkResult result = vkGetSemaphoreCounterValue(device.handle, uploader.timeline, &reached);
    return result != VK_SUCCESS || reached < uploader.last_value;  // unknown: assume running
}

void destroy_uploader(const Device& device, Uploader& uploader) {
    if (uploader_busy(device, uploader)) {
        abandon_to_running_work(device, "an upload's staging buffer");
        uploader = Uploader{};
        return;
    }
    destroy_semaphore(device, uploader.timeline);
    if (uploader.main_pool != VK_NULL_HANDLE)
        vkDestroyCommandPool(device.handle, uploader.main_pool, nullptr);
    if (uploader.transfer_pool != VK_NULL_HANDLE)
        vkDestroyCommandPool(device.handle, uploader.transfer_pool, nullptr);
    destroy_buffer(device, uploader.staging);
    uploader = Uploader{};
}

void upload_buffer(const Device& device, Uploader& uploader, const Buffer& dst,
                   std::span<const std::uint8_t> bytes, VkDeviceSize offset) {
    BATCHSIM_CHECK(offset <= dst.size && bytes.size() <= dst.size - offset, InvalidArgument,
                   str("cannot upload ", bytes.size(), " bytes at offset ", offset, " into a ",
                       dst.size, "-byte buffer"));
    const bool handoff = device.dedicated_transfer() && offset == 0 && bytes.size() == dst.size;
    const VkDeviceSize chunk = uploader.staging.size;
    for (VkDeviceSize done = 0; done < bytes.size();) {
        const VkDeviceSize size = std::min<VkDeviceSize>(chunk, bytes.size() - done);
        std::memcpy(staging_bytes(uploader), bytes.data() + done, size);
        VkCommandBuffer commands = begin_pass(device, uploader, handoff);
        if (!handoff)  // after earlier use of dst on the main queue
            record_buffer_barrier(device, commands, dst,
                                  {VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, kAnyAccess,
                                   VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT});
        const VkBufferCopy region{0, offset + done, size};
        vkCmdCopyBuffer(commands, uploader.staging.handle, dst.handle, 1, &region);
        done += size;
        const bool last = done == bytes.size();
        if (!handoff) {
            record_buffer_barrier(device, commands, dst,
                                  {VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                   VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, kAnyAccess});
            finish_pass(device, uploader, false);
        } else if (!last) {
            finish_pass(device, uploader, true);
        } else {
            hand_off_buffer(device, uploader, commands, dst);
        }
    }
}

void upload_image_mips(const Device& device, Uploader& uploader, const Image& image,
                       std::span<const std::span<const std::uint8_t>> levels) {
    check_copyable_image(uploader, image);
    check_levels(image, levels);
    const bool handoff = device.dedicated_transfer();
    const auto batches = plan_rows(image.extent, 0, image.mip_levels, uploader.staging.size,
                                   image.layers, texel_block(image.format));
    for (std::size_t b = 0; b < batches.size(); ++b) {
        VkCommandBuffer commands = begin_pass(device, uploader, handoff);
        if (b == 0)
            record_image_barrier(device, commands, image,
                                 {.old_layout = VK_IMAGE_LAYOUT_UNDEFINED,
                                  .new_layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                  .dst_stage = VK_PIPELINE_STAGE_2_COPY_BIT,
                                  .dst_access = VK_ACCESS_2_TRANSFER_WRITE_BIT});
        const auto regions = stage_rows(uploader, image, levels, batches[b]);
        vkCmdCopyBufferToImage(commands, uploader.staging.handle, image.handle,
                               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                               static_cast<std::uint32_t>(regions.size()), regions.data());
        if (b + 1 < batches.size()) {
            finish_pass(device, uploader, handoff);
            continue;
        }
        record_image_barrier(device, commands, image, image_ready_barrier(device, handoff, false));
        if (!handoff) {
            finish_pass(device, uploader, false);
        } else {
            finish_pass(device, uploader, true, [&](VkCommandBuffer main) {
                record_image_barrier(device, main, image, image_ready_barrier(device, false, true));
            });
        }
    }
}

void upload_buffer(const Device& device, const Buffer& dst, std::span<const std::uint8_t> bytes,
                   VkDeviceSize offset) {
    with_uploader(device, bytes.size(),
                  [&](Uploader& uploader) { upload_buffer(device, uploader, dst, bytes, offset); });
}

void upload_image_mips(const Device& device, const Image& image,
                       std::span<const std::span<const std::uint8_t>> levels) {
    const VkDeviceSize bytes = std::max(chain_bytes(levels), row_bytes(image, 0));
    with_uploader(device, bytes,
                  [&](Uploader& uploader) { upload_image_mips(device, uploader, image, levels); });
}

}  // namespace batchsim::vk
