#include "assets/scene_data.hpp"

#include <algorithm>

namespace batchsim::assets {

std::size_t mip_chain_bytes(std::uint32_t width, std::uint32_t height, std::uint32_t mip_count) {
    std::size_t bytes = 0;
    for (std::uint32_t level = 0; level < mip_count; ++level) {
        bytes += std::size_t{width} * height * 4;
        width = std::max(width / 2, 1u);
        height = std::max(height / 2, 1u);
    }
    return bytes;
}

}  // namespace batchsim::assets
