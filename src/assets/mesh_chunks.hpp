// Turns per-material triangle lists into a scene's shared vertex/index buffers, cut into
// small spatially coherent chunks (the unit of GPU culling) in GPU-friendly order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "assets/scene_data.hpp"

namespace batchsim::assets {

// The triangles of one material: `indices` (3 per triangle) address `vertices`.
struct MaterialMesh {
    std::uint32_t material = 0;  // index into SceneData::materials
    std::vector<Vertex> vertices;
    std::vector<std::uint32_t> indices;
};

// Appends every mesh to scene.vertices/indices/chunks in ascending material order:
// duplicate vertices are merged, triangles sorted along a Morton curve and cut into chunks
// of at most `chunk_triangles`, each chunk cache-optimised, vertices reordered for fetch.
// Chunks come out sorted by material and cover the appended indices exactly once. Sets
// scene.bounds to the bounds of all scene vertices. Throws Error(InvalidArgument) if
// chunk_triangles is 0 or an index is out of range.
void build_chunks(std::vector<MaterialMesh> meshes, std::uint32_t chunk_triangles,
                  SceneData& scene);

// Bounds of `vertices`' positions; all zero when empty.
Bounds compute_bounds(std::span<const Vertex> vertices);

}  // namespace batchsim::assets
