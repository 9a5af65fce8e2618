// A scene's bounding volume hierarchy for ray casting: built with a binned SAH whenever a
// scene is packed, stored in the packed scene file and walked by the compute renderer
// (trace.comp). The node and triangle layouts are gpu::BvhNode and gpu::BvhTriangle
// (shaders/shared.h). Built in bvh.cpp; closest_hit (bvh_traversal.cpp) is the CPU twin of
// the shader's traversal.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "assets/scene_data.hpp"

namespace batchsim::assets {

using gpu::BvhNode;
using gpu::BvhTriangle;

struct Bvh {
    std::vector<BvhNode> nodes;          // depth-first: children after parents; 0 is the root
    std::vector<BvhTriangle> triangles;  // leaf order; every scene triangle exactly once
};

// Builds the BVH of the triangles `indices` (3 per triangle) make of `vertices`; each
// triangle's material is that of the chunk covering it (0 where none does). Leaves hold at
// most 4 triangles unless the depth cap (BATCHSIM_BVH_MAX_DEPTH nodes on a path) stops the
// split; zero-area triangles are kept. Deterministic: equal inputs give equal bytes.
// Throws Error(InvalidArgument) for an index count that is not a multiple of 3, an index
// out of range or a non-finite vertex position.
Bvh build_bvh(std::span<const Vertex> vertices, std::span<const std::uint32_t> indices,
              std::span<const MeshChunk> chunks);

// Nodes on the longest root-to-node path (1 for a root alone). `nodes` must be well formed
// (a loaded PackedScene's are): every inner child index greater than its parent's.
std::uint32_t bvh_depth(std::span<const BvhNode> nodes);

struct BvhHit {
    std::uint32_t triangle;  // index into the BVH's triangles, as gpu::TraceHit::triangle
    float t;                 // the hit is origin + t * direction
    float b1, b2;            // barycentric weights of corners b and c
};

// Moller-Trumbore on one triangle, both faces, accepting t in [t_min, t_max]; rejects rays
// in the triangle's plane and zero-area triangles (determinant exactly 0, as trace.comp).
std::optional<BvhHit> intersect_triangle(std::span<const BvhTriangle> triangles,
                                         std::uint32_t index, const std::array<float, 3>& origin,
                                         const std::array<float, 3>& direction, float t_min,
                                         float t_max);

// The closest hit with t in [t_min, t_max] of the ray origin + t * direction (direction
// need not be unit length), or none: a stack traversal that visits the nearer child first,
// as trace.comp does. `nodes` and `triangles` must be well formed (a loaded PackedScene's
// or build_bvh's).
std::optional<BvhHit> closest_hit(std::span<const BvhNode> nodes,
                                  std::span<const BvhTriangle> triangles,
                                  const std::array<float, 3>& origin,
                                  const std::array<float, 3>& direction, float t_min, float t_max);

}  // namespace batchsim::assets
