// Block compression of scene textures with libsquish: BC1 ("DXT1"), 8 bytes per 4x4 texels,
// an eighth of RGBA8, which every desktop GPU samples in hardware. The renderers are
// opaque, so alpha is dropped before encoding (BC1's 1-bit alpha would turn the colour of
// every texel with alpha below one half black).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "assets/scene_data.hpp"

namespace batchsim::assets {

// `texture` (RGBA8) with every level encoded as `format`; a copy for Rgba8Srgb. Throws
// Error(InvalidArgument) if `texture` is already compressed.
TextureData compress_texture(const TextureData& texture, TextureFormat format);

// compress_texture over `textures` in place, on `threads` threads (0: one per core).
void compress_textures(std::vector<TextureData>& textures, TextureFormat format, int threads = 0);

// One width x height level stored as `format`, decoded to RGBA8 (rows top first). Throws
// Error(InvalidArgument) if `bytes` is not level_bytes(width, height, format) long.
std::vector<std::uint8_t> decode_level(std::span<const std::uint8_t> bytes, std::uint32_t width,
                                       std::uint32_t height, TextureFormat format);

}  // namespace batchsim::assets
