// Texture groups: the textures of one size (width, height, mip count, format), which the
// renderers keep in one 2D array image, a layer each (at most kMaxGroupLayers: a size with
// more textures takes several groups). The renderers' texture table has kMaxTextureGroups
// slots (drivers without descriptor indexing select textures by constant index only), so
// packing resamples the textures of a scene's rarest sizes to the nearest size it keeps; a
// packed scene never has more groups than the table holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "assets/scene_data.hpp"

namespace batchsim::assets {

inline constexpr std::size_t kMaxTextureGroups = BATCHSIM_MAX_TEXTURE_GROUPS;
// Layers of one group's image: what every Vulkan driver we know allows (NVIDIA, AMD, Intel,
// lavapipe: maxImageArrayLayers = 2048); the renderers check the device's own limit.
inline constexpr std::uint32_t kMaxGroupLayers = 2048;

struct TextureSize {
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    std::uint32_t mip_count = 0;
    TextureFormat format = TextureFormat::Rgba8Srgb;
    // Ordered (for std::map keys) by width, height, mips, then format. Written out: clang-tidy
    // 14 misreads a defaulted operator<=> (modernize-use-nullptr on its comparison category).
    bool operator==(const TextureSize&) const = default;
    bool operator<(const TextureSize& o) const {
        return std::tie(width, height, mip_count, format) <
               std::tie(o.width, o.height, o.mip_count, o.format);
    }
};

struct TextureGroups {
    std::vector<TextureSize> sizes;    // per group, in the order of each size's first texture
    std::vector<std::uint32_t> count;  // per group: its textures (layers)
    std::vector<std::uint32_t> group;  // per texture: its group
    std::vector<std::uint32_t> layer;  // per texture: its layer in its group, in texture order
};

// Groups textures by size; deterministic (texture order alone decides slots and layers). A
// size's kMaxGroupLayers + 1st texture opens a new group of that size.
TextureGroups group_textures(std::span<const TextureSize> textures);

std::vector<TextureSize> texture_sizes(std::span<const TextureData> textures);

// With more than kMaxTextureGroups sizes, resamples every texture of the rarest sizes (fewest
// textures; ties: the smaller area goes) to the nearest kept size (closest in log2 of width
// and height; ties: the larger) and rebuilds its mip chain as the importer does. Returns how
// many textures it resampled (0, leaving them untouched, with at most kMaxTextureGroups sizes).
std::size_t limit_texture_sizes(std::vector<TextureData>& textures);

}  // namespace batchsim::assets
