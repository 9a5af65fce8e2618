// A scene in memory: what the importer produces, the packed file stores and the renderers
// and navigation read. Geometry structs are the GPU-visible ones from shaders/shared.h.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shared.h"

namespace batchsim::assets {

using gpu::Material;
using gpu::MeshChunk;
using gpu::Vertex;

// How a texture's texels are stored; the values are the packed file's (TextureRecord::format).
enum class TextureFormat : std::uint32_t {
    Rgba8Srgb = 0,  // 4 bytes a texel
    Bc1Srgb = 1,    // BC1 (DXT1) blocks of 4x4 texels, 8 bytes each; RGB and a 1-bit alpha
};

// A texture with its mip chain: level 0 first, each level half the previous one (rounded
// down, at least 1), all levels concatenated in `pixels`, each in `format`. Decoded
// textures are RGBA8 (sRGB) with the full chain; only packing shortens or compresses them.
struct TextureData {
    std::string name;  // file name or "*N" for a model's N-th embedded texture
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    std::uint32_t mip_count = 0;
    std::vector<std::uint8_t> pixels;
    TextureFormat format = TextureFormat::Rgba8Srgb;
};

// Axis-aligned bounds in metres.
struct Bounds {
    std::array<float, 3> min{0, 0, 0};
    std::array<float, 3> max{0, 0, 0};
};

struct SceneData {
    std::vector<Vertex> vertices;
    std::vector<std::uint32_t> indices;  // 3 per triangle, into `vertices`
    std::vector<MeshChunk> chunks;       // sorted by material; cover `indices` exactly once
    std::vector<Material> materials;
    std::vector<TextureData> textures;
    std::vector<std::uint8_t> navmesh;  // a Habitat .navmesh ("MSET") image; empty if none
    Bounds bounds;
    std::string source;  // the file it was imported from, for messages

    [[nodiscard]] std::size_t triangle_count() const { return indices.size() / 3; }
};

// Bytes of one width x height level in `format` (a BC1 level takes whole 4x4 blocks).
std::size_t level_bytes(std::uint32_t width, std::uint32_t height,
                        TextureFormat format = TextureFormat::Rgba8Srgb);

// Bytes of a mip chain of a width x height texture with `mip_count` levels.
std::size_t mip_chain_bytes(std::uint32_t width, std::uint32_t height, std::uint32_t mip_count,
                            TextureFormat format = TextureFormat::Rgba8Srgb);

// "rgba8" or "bc1": the names options and messages use.
const char* format_name(TextureFormat format);
// The format named `name` (format_name's); throws Error(InvalidArgument) listing the names.
TextureFormat parse_texture_format(std::string_view name);

}  // namespace batchsim::assets
