#include "assets/scene_data.hpp"

#include <algorithm>
#include <array>

#include "core/choice.hpp"

namespace batchsim::assets {
namespace {

constexpr std::array<Choice<TextureFormat>, 2> kFormats{{
    {"rgba8", TextureFormat::Rgba8Srgb},
    {"bc1", TextureFormat::Bc1Srgb},
}};

}  // namespace

std::size_t level_bytes(std::uint32_t width, std::uint32_t height, TextureFormat format) {
    if (format == TextureFormat::Bc1Srgb) {
        constexpr std::size_t kBlockBytes = 8;
        return std::size_t{(width + 3) / 4} * ((height + 3) / 4) * kBlockBytes;
    }
    return std::size_t{width} * height * 4;
}

std::size_t mip_chain_bytes(std::uint32_t width, std::uint32_t height, std::uint32_t mip_count,
                            TextureFormat format) {
    std::size_t bytes = 0;
    for (std::uint32_t level = 0; level < mip_count; ++level) {
        bytes += level_bytes(width, height, format);
        width = std::max(width / 2, 1u);
        height = std::max(height / 2, 1u);
    }
    return bytes;
}

const char* format_name(TextureFormat format) {
    return choice_name<TextureFormat>(format, kFormats);
}

TextureFormat parse_texture_format(std::string_view name) {
    return parse_choice<TextureFormat>(name, "texture format", kFormats);
}

}  // namespace batchsim::assets
