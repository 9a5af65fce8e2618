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
};

// `batches` ranges of as equal size as possible, in view order. Throws
// Error(InvalidArgument) unless 1 <= batches <= views.
std::vector<ViewBatch> split_views(std::uint32_t views, std::uint32_t batches);

// The atlas pixels a batch's tiles cover (whole rows unless they fit in one): the raster
// backend draws and clears only there.
VkRect2D tiles_area(const AtlasLayout& layout, const ViewBatch& batch);

}  // namespace batchsim::render
