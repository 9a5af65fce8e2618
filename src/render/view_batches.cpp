#include "render/view_batches.hpp"

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::render {

std::vector<ViewBatch> split_views(std::uint32_t views, std::uint32_t batches) {
    BATCHSIM_CHECK(batches >= 1 && batches <= views, InvalidArgument,
                   str("batches must be within 1..", views, " (the view count), got ", batches));
    std::vector<ViewBatch> out(batches);
    const std::uint32_t base = views / batches, extra = views % batches;
    std::uint32_t first = 0;
    for (std::uint32_t b = 0; b < batches; ++b) {
        const std::uint32_t count = base + (b < extra ? 1 : 0);
        out[b] = {first, count};
        first += count;
    }
    return out;
}

VkRect2D tiles_area(const AtlasLayout& layout, const ViewBatch& batch) {
    const std::uint32_t first = batch.first_view, last = first + batch.view_count - 1;
    const std::uint32_t first_row = first / layout.tiles_x, last_row = last / layout.tiles_x;
    std::uint32_t first_column = 0, columns = layout.tiles_x;
    if (first_row == last_row) {
        first_column = first % layout.tiles_x;
        columns = batch.view_count;
    }
    return {{static_cast<std::int32_t>(first_column * layout.tile_width),
             static_cast<std::int32_t>(first_row * layout.tile_height)},
            {columns * layout.tile_width, (last_row - first_row + 1) * layout.tile_height}};
}

}  // namespace batchsim::render
