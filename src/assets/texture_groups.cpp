#include "assets/texture_groups.hpp"

#include <stb/stb_image_resize.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "assets/textures.hpp"
#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::assets {
namespace {

constexpr int kChannels = 4;
constexpr int kAlphaChannel = 3;

std::uint64_t area(const TextureSize& s) {
    return std::uint64_t{s.width} * s.height;
}

// The sizes to keep: the kMaxTextureGroups with the most textures (ties: larger area, then
// the size order), so that the fewest textures change and detail is kept where it may.
std::vector<TextureSize> kept_sizes(const std::map<TextureSize, std::size_t>& counts) {
    std::vector<std::pair<TextureSize, std::size_t>> ranked(counts.begin(), counts.end());
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        if (a.second != b.second) return a.second > b.second;
        if (area(a.first) != area(b.first)) return area(a.first) > area(b.first);
        return a.first < b.first;
    });
    std::vector<TextureSize> kept;
    for (std::size_t i = 0; i < kMaxTextureGroups; ++i) kept.push_back(ranked[i].first);
    return kept;
}

// The kept size closest to `size` in log2 of width and height (ties: the larger area).
TextureSize nearest(const TextureSize& size, const std::vector<TextureSize>& kept) {
    const auto distance = [&](const TextureSize& k) {
        return std::abs(std::log2(double(k.width) / size.width)) +
               std::abs(std::log2(double(k.height) / size.height));
    };
    return *std::min_element(kept.begin(), kept.end(), [&](const auto& a, const auto& b) {
        const double da = distance(a), db = distance(b);
        if (da != db) return da < db;
        if (area(a) != area(b)) return area(a) > area(b);
        return a < b;
    });
}

// Level 0 resampled in linear light (sRGB decoded; alpha as it is, not premultiplied),
// wrapping at the edges as the renderers' samplers repeat; then a fresh mip chain.
TextureData resample(const TextureData& texture, const TextureSize& to) {
    BATCHSIM_CHECK(texture.format == TextureFormat::Rgba8Srgb, InvalidArgument,
                   str("texture '", texture.name, "' is ", format_name(texture.format),
                       ": only RGBA8 textures can be resampled (limit sizes before compressing)"));
    std::vector<std::uint8_t> rgba(std::size_t{to.width} * to.height * kChannels);
    const bool same = texture.width == to.width && texture.height == to.height;
    if (same) {
        std::copy_n(texture.pixels.begin(), rgba.size(), rgba.begin());
    } else {
        const int ok = stbir_resize_uint8_srgb_edgemode(
            texture.pixels.data(), int(texture.width), int(texture.height), 0, rgba.data(),
            int(to.width), int(to.height), 0, kChannels, kAlphaChannel,
            STBIR_FLAG_ALPHA_PREMULTIPLIED, STBIR_EDGE_WRAP);
        BATCHSIM_CHECK(ok != 0, Internal, str("cannot resample texture '", texture.name, "'"));
    }
    TextureData out = make_texture(texture.name, to.width, to.height, std::move(rgba));
    out.mip_count = std::min(out.mip_count, to.mip_count);  // the kept group's chain length
    out.pixels.resize(mip_chain_bytes(to.width, to.height, out.mip_count));
    return out;
}

}  // namespace

TextureGroups group_textures(std::span<const TextureSize> textures) {
    TextureGroups out;
    std::map<TextureSize, std::uint32_t> open_slot;  // each size's group taking layers
    for (const TextureSize& size : textures) {
        auto [it, added] = open_slot.try_emplace(size, std::uint32_t(out.sizes.size()));
        if (!added && out.count[it->second] == kMaxGroupLayers) {
            it->second = std::uint32_t(out.sizes.size());
            added = true;
        }
        if (added) {
            out.sizes.push_back(size);
            out.count.push_back(0);
        }
        out.group.push_back(it->second);
        out.layer.push_back(out.count[it->second]++);
    }
    return out;
}

std::vector<TextureSize> texture_sizes(std::span<const TextureData> textures) {
    std::vector<TextureSize> sizes;
    sizes.reserve(textures.size());
    for (const TextureData& t : textures)
        sizes.push_back({t.width, t.height, t.mip_count, t.format});
    return sizes;
}

std::size_t limit_texture_sizes(std::vector<TextureData>& textures) {
    std::map<TextureSize, std::size_t> counts;
    for (const TextureSize& size : texture_sizes(textures)) ++counts[size];
    if (counts.size() <= kMaxTextureGroups) return 0;
    const std::vector<TextureSize> kept = kept_sizes(counts);
    std::size_t changed = 0;
    for (TextureData& texture : textures) {
        const TextureSize size{texture.width, texture.height, texture.mip_count, texture.format};
        if (std::find(kept.begin(), kept.end(), size) != kept.end()) continue;
        texture = resample(texture, nearest(size, kept));
        ++changed;
    }
    return changed;
}

}  // namespace batchsim::assets
