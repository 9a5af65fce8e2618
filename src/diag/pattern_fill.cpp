#include "diag/pattern_fill.hpp"

#include <algorithm>
#include <limits>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "vk/embedded_shaders.hpp"

#include "shared.h"

namespace batchsim {

PatternFill::PatternFill(std::shared_ptr<device::GpuContext> context)
    : context_(std::move(context)) {
    BATCHSIM_CHECK(context_ != nullptr, InvalidArgument, "PatternFill needs a GpuContext");
    pipeline_ =
        vk::create_compute_pipeline(context_->device(), vk::embedded_shader("fill_pattern.comp"),
                                    sizeof(gpu::FillPatternParams));
}

PatternFill::~PatternFill() {
    if (context_->settle("the pattern-fill pipeline"))  // a submission may still use it
        vk::destroy_compute_pipeline(context_->device(), pipeline_);
}

void PatternFill::run(device::PersistentTensor& tensor, std::uint32_t seed,
                      std::uintptr_t cuda_stream) {
    BATCHSIM_CHECK(tensor.context() == context_, InvalidArgument,
                   "the tensor belongs to a different batchsim.Context than the kernel");
    BATCHSIM_CHECK(tensor.dtype() == device::DType::Float32, InvalidArgument,
                   str("expected a float32 tensor, got ", device::dtype_name(tensor.dtype())));
    BATCHSIM_CHECK(tensor.numel() <= std::numeric_limits<std::uint32_t>::max(), InvalidArgument,
                   str("expected at most 2^32-1 elements, got ", tensor.numel()));

    const gpu::FillPatternParams params{.address = tensor.device_address(),
                                        .count = static_cast<std::uint32_t>(tensor.numel()),
                                        .seed = seed};
    const auto groups = std::clamp<std::uint32_t>(
        (params.count + BATCHSIM_FILL_PATTERN_GROUP_SIZE - 1) / BATCHSIM_FILL_PATTERN_GROUP_SIZE,
        1u, gpu::kFillPatternMaxGroups);

    auto recording = context_->begin();
    vk::dispatch(recording.commands(), pipeline_, &params, groups);
    // Shader writes become visible to host reads (CPU export); CUDA import needs no barrier
    // beyond the semaphore signal, which makes all prior writes available.
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(recording.commands(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr, 0, nullptr);
    context_->submit(recording, cuda_stream);
}

float PatternFill::expected(std::uint32_t index, std::uint32_t seed) {
    const std::uint32_t mixed = index * gpu::kFillPatternIndexStride +
                                seed * gpu::kFillPatternSeedStride;  // wraps mod 2^32
    return static_cast<float>(mixed % gpu::kFillPatternModulus);
}

}  // namespace batchsim
