#include "env/step_results.hpp"

#include <algorithm>
#include <cstring>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::env {
namespace {

// Staged rows start on this boundary, so each result's copy has an aligned source.
constexpr std::size_t kAlign = 16;

std::size_t aligned(std::size_t bytes) {
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
    std::size_t staged_bytes = 0;
    for (const ResultSource& source : sources) {
        BATCHSIM_CHECK(source.rows != nullptr && source.columns >= 1, InvalidArgument,
                       str("result '", source.name, "': expected rows and columns >= 1"));
        const std::size_t row_bytes =
            device::dtype_size(source.dtype) * static_cast<std::size_t>(source.columns);
        layouts_.push_back({static_cast<const std::byte*>(source.rows), row_bytes, staged_bytes});
        staged_bytes += aligned(row_bytes * static_cast<std::size_t>(num_envs));
    }
    staged_bytes = std::max(staged_bytes, kAlign);
    block_ = device::PersistentTensor::create(context_, {static_cast<std::int64_t>(staged_bytes)},
                                              device::DType::UInt8);
    for (std::size_t i = 0; i < sources.size(); ++i)
        results_.push_back({sources[i].name, block_->view(layouts_[i].staged_offset,
                                                          shape_of(num_envs, sources[i].columns),
                                                          sources[i].dtype)});
    staging_ = std::make_unique<device::StagingBuffer>(context_, staged_bytes);
}

void StepResults::stage(render::ViewRange envs) {
    std::byte* staged = staging_->data();
    for (const Layout& layout : layouts_) {
        const std::size_t first = layout.row_bytes * envs.first;
        std::memcpy(staged + layout.staged_offset + first, layout.rows + first,
                    layout.row_bytes * envs.count);
    }
}

void StepResults::record_copy(VkCommandBuffer commands, render::ViewRange envs) const {
    std::vector<device::CopyRegion> regions;
    if (envs.first == 0 && std::int64_t{envs.count} == num_envs_) {
        regions.push_back({.from_offset = 0, .to_offset = 0, .bytes = block_->nbytes()});
    } else {  // a batch of some environments: its rows of each result
        for (const Layout& layout : layouts_) {
            const std::size_t first = layout.staged_offset + layout.row_bytes * envs.first;
            regions.push_back(
                {.from_offset = first, .to_offset = first, .bytes = layout.row_bytes * envs.count});
        }
    }
    staging_->record_copy(commands, *block_, regions);
}

}  // namespace batchsim::env
