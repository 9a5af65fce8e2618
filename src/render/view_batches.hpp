// How a renderer's views split into batches: contiguous ranges of views, each recorded into
// its own command buffer and submitted on its own. One batch is the batched renderer; two
// let the GPU render one half while the CPU simulates the other; one per view is the naive
// mode (a submission per environment, as one renderer per environment would make).
#pragma once

#include <cstdint>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "render/atlas.hpp"

namespace batchsim::render {

struct ViewBatch {
    std::uint32_t first_view = 0;
    std::uint32_t view_count = 0;
    VkRect2D area{};  // the atlas pixels its tiles cover (whole rows unless it fits in one)
};

// `batches` ranges of as equal size as possible, in view order. Throws
// Error(InvalidArgument) unless 1 <= batches <= layout.views.
std::vector<ViewBatch> split_views(const AtlasLayout& layout, std::uint32_t batches);

}  // namespace batchsim::render
