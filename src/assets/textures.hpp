// Texture decoding and mip chains: every texture a scene carries is RGBA8 (sRGB) with its
// full mip chain down to 1x1, so renderers upload it as-is.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "assets/file_kinds.hpp"
#include "assets/scene_data.hpp"

namespace batchsim::assets {

// Largest accepted width or height: Vulkan's guaranteed maximum is 4096 and every desktop GPU
// handles 16384; anything larger is almost certainly a corrupt header.
inline constexpr std::uint32_t kMaxTextureSize = 16384;
// Why, for messages.
inline constexpr std::string_view kMaxTextureSizeWhy =
    "desktop GPUs sample at most 16384 texels a side, and one such RGBA8 texture with its mips "
    "takes 1.3 GiB, 5 times the default texture budget of a scene";

// floor(log2(max(width, height))) + 1: the number of levels down to 1x1.
std::uint32_t full_mip_count(std::uint32_t width, std::uint32_t height);

// Decodes an encoded image (PNG, JPEG, TGA, BMP, ... anything stb_image reads) to RGBA8 with
// a full mip chain. `declared`: the image kind the model says (a glTF mimeType); Unknown
// takes it from `name`'s extension, for messages. Throws Error(Unsupported) for KTX / KTX2
// and WebP images (with how to convert them), Error(CorruptData) naming `name` if the bytes
// are another kind of file (named: "a gzip archive, not an image"), cannot be decoded, or
// the size its header declares is 0 or above kMaxTextureSize.
TextureData decode_texture(std::span<const std::uint8_t> encoded, std::string name,
                           FileKind declared = FileKind::Unknown);

// A linear value in [0, 1] (clamped; NaN as 0) as an sRGB-encoded byte, rounded.
std::uint8_t linear_to_srgb_byte(float linear);

// Wraps width x height RGBA8 pixels (top row first) and appends the full mip chain.
// Throws Error(CorruptData) on a bad size and Error(InvalidArgument) if `rgba` has the
// wrong length.
TextureData make_texture(std::string name, std::uint32_t width, std::uint32_t height,
                         std::vector<std::uint8_t> rgba);

}  // namespace batchsim::assets
