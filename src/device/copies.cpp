#include "device/copies.hpp"

#include <utility>
#include <vector>

#include "core/check.hpp"
#include "vk/sync.hpp"

namespace batchsim::device {
namespace {

void record_regions(VkCommandBuffer commands, VkBuffer from, VkBuffer to,
                    std::span<const CopyRegion> regions) {
    std::vector<VkBufferCopy> copies;
    copies.reserve(regions.size());
    for (const CopyRegion& region : regions)
        copies.push_back(
            {.srcOffset = region.from_offset, .dstOffset = region.to_offset, .size = region.bytes});
    vkCmdCopyBuffer(commands, from, to, static_cast<std::uint32_t>(copies.size()), copies.data());
}

}  // namespace

StagingBuffer::StagingBuffer(std::shared_ptr<GpuContext> context, std::size_t bytes)
    : context_(std::move(context)) {
    BATCHSIM_CHECK(context_ != nullptr, InvalidArgument, "a StagingBuffer needs a GpuContext");
    buffer_ = vk::create_buffer(context_->device(), {.size = bytes,
                                                     .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                                     .location = vk::MemoryLocation::HostVisible});
}

StagingBuffer::~StagingBuffer() {
    if (context_->settle("a staging buffer")) vk::destroy_buffer(context_->device(), buffer_);
}

void StagingBuffer::record_copy(VkCommandBuffer commands, const PersistentTensor& to,
                                std::span<const CopyRegion> regions) const {
    record_regions(commands, buffer_.handle, to.vk_buffer(), regions);
}

void copy_rows(GpuContext& context, std::span<const TensorCopy> copies, Rows rows,
               std::uintptr_t cuda_stream) {
    auto recording = context.begin();
    const VkCommandBuffer commands = recording.commands();
    // After the earlier submissions' writes; before a later one overwrites what is copied.
    vk::record_memory_barrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                              VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                              VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    for (const TensorCopy& copy : copies) {
        const std::size_t per_row =
            copy.from->nbytes() / static_cast<std::size_t>(copy.from->shape()[0]);
        const CopyRegion region{.from_offset = per_row * rows.first,
                                .to_offset = per_row * rows.first,
                                .bytes = per_row * rows.count};
        record_regions(commands, copy.from->vk_buffer(), copy.to->vk_buffer(), {&region, 1});
    }
    vk::record_memory_barrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT,
                              VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                              VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
    context.submit(recording, cuda_stream);
}

}  // namespace batchsim::device
