// A scene in memory: what the importer produces, the packed file stores and the renderers
// and navigation read. Geometry structs are the GPU-visible ones from shaders/shared.h.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "shared.h"

namespace batchsim::assets {

using gpu::Material;
using gpu::MeshChunk;
using gpu::Vertex;

// An RGBA8 (sRGB) texture with its full mip chain: level 0 first, each level half the
// previous one (rounded down, at least 1), all levels concatenated in `pixels`.
struct TextureData {
    std::string name;  // file name or "*N" for a model's N-th embedded texture
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    std::uint32_t mip_count = 0;
    std::vector<std::uint8_t> pixels;
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

// Bytes of a mip chain of a width x height RGBA8 texture with `mip_count` levels.
std::size_t mip_chain_bytes(std::uint32_t width, std::uint32_t height, std::uint32_t mip_count);

}  // namespace batchsim::assets
