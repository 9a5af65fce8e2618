#include "env/step_results.hpp"

#include <algorithm>
#include <cstring>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::env {
namespace {

// Staged rows start on this boundary, so each result's copy has an aligned source.
constexpr VkDeviceSize kAlign = 16;

VkDeviceSize aligned(VkDeviceSize bytes) {
    return (bytes + kAlign - 1) / kAlign * kAlign;
}

std::vector<std::int64_t> shape_of(std::int64_t num_envs, std::int64_t columns) {
    if (columns == 1) return {num_envs};
    return {num_envs, columns};
}

}  // namespace

StepResults::StepResults(std::shared_ptr<device::GpuContext> context, std::int64_t num_envs,
                         const std::vector<ResultSource>& sources)
    : context_(std::move(context)), num_envs_(num_envs) {
    BATCHSIM_CHECK(context_ != nullptr, InvalidArgument, "StepResults needs a GpuContext");
    VkDeviceSize staged_bytes = 0;
    for (const ResultSource& source : sources) {
        BATCHSIM_CHECK(source.rows != nullptr && source.columns >= 1, InvalidArgument,
                       str("result '", source.name, "': expected rows and columns >= 1"));
        const std::size_t row_bytes =
            device::dtype_size(source.dtype) * static_cast<std::size_t>(source.columns);
        layouts_.push_back({static_cast<const std::byte*>(source.rows), row_bytes, staged_bytes});
        staged_bytes += aligned(row_bytes * static_cast<VkDeviceSize>(num_envs));
    }
    staged_bytes = std::max(staged_bytes, kAlign);
    block_ = device::PersistentTensor::create(context_, {static_cast<std::int64_t>(staged_bytes)},
                                              device::DType::UInt8);
    for (std::size_t i = 0; i < sources.size(); ++i)
        results_.push_back({sources[i].name, block_->view(layouts_[i].staged_offset,
                                                          shape_of(num_envs, sources[i].columns),
                                                          sources[i].dtype)});
    staging_ = vk::create_buffer(context_->device(), {.size = staged_bytes,
                                                      .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                                      .location = vk::MemoryLocation::HostVisible});
}

StepResults::~StepResults() {
    if (context_->settle("the step results' staging buffer"))
        vk::destroy_buffer(context_->device(), staging_);
}

void StepResults::stage(render::ViewRange envs) {
    auto* staged = static_cast<std::byte*>(staging_.mapped);
    for (const Layout& layout : layouts_) {
        const std::size_t first = layout.row_bytes * envs.first;
        std::memcpy(staged + layout.staged_offset + first, layout.rows + first,
                    layout.row_bytes * envs.count);
    }
}

void StepResults::record_copy(VkCommandBuffer commands, render::ViewRange envs) const {
    std::vector<VkBufferCopy> regions;
    if (envs.first == 0 && std::int64_t{envs.count} == num_envs_) {
        regions.push_back({.srcOffset = 0, .dstOffset = 0, .size = block_->nbytes()});
    } else {  // a batch of some environments: its rows of each result
        for (const Layout& layout : layouts_) {
            const VkDeviceSize first =
                layout.staged_offset + VkDeviceSize{layout.row_bytes} * envs.first;
            regions.push_back({.srcOffset = first,
                               .dstOffset = first,
                               .size = VkDeviceSize{layout.row_bytes} * envs.count});
        }
    }
    vkCmdCopyBuffer(commands, staging_.handle, block_->vk_buffer(),
                    static_cast<std::uint32_t>(regions.size()), regions.data());
}

}  // namespace batchsim::env
