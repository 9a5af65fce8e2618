// The 4-wide BVH the compute renderer traces (gpu::Bvh4Node, shaders/shared.h): made when
// a scene is uploaded by collapsing its stored BVH2, so the packed format and assets::Bvh stay
// as they are. The triangles and their order are unchanged: TraceHit::triangle and shade.comp
// still index the BVH's triangles. closest_hit4 (bvh_wide_traversal.cpp) is the CPU twin of
// trace.comp's traversal, for tests.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "assets/bvh.hpp"

namespace batchsim::assets {

using gpu::Bvh4Node;

// Collapses a BVH2 into 4-wide nodes: each takes its BVH2 node's two children and keeps
// replacing the inner child of largest surface area by its two children while it has fewer
// than four, as long as a traversal's stack (one entry per hit child but the nearest, per
// node on the path) stays within BATCHSIM_BVH_MAX_DEPTH entries. Nodes come in depth-first
// order, 0 the root. `nodes` must be well formed (a loaded PackedScene's or build_bvh's);
// throws Error(InvalidArgument) when it is deeper than BATCHSIM_BVH_MAX_DEPTH levels.
std::vector<Bvh4Node> collapse_bvh4(std::span<const BvhNode> nodes);

// The most stack entries a traversal of `nodes` can hold: over every root-to-node path, the
// sum of (children - 1) of the nodes on it, unused slots not counted.
std::uint32_t bvh4_stack_bound(std::span<const Bvh4Node> nodes);

// The closest hit with t in [t_min, t_max] of origin + t * direction, walking the 4-wide
// nodes as trace.comp does: at each node the children the ray enters, sorted by entry
// distance, are pushed farthest first but for the nearest, visited next, leaves included
// (a leaf's triangles are intersected when it comes off the stack; entries a closer hit has
// put out of reach are dropped as they come off). The same hit as
// closest_hit on the BVH2 it was collapsed from (up to which of several triangles hit at the
// same t is reported), or a closer one where that walk pruned a box by its rounded entry
// distance, which this one allows a margin for.
std::optional<BvhHit> closest_hit4(std::span<const Bvh4Node> nodes,
                                   std::span<const BvhTriangle> triangles,
                                   const std::array<float, 3>& origin,
                                   const std::array<float, 3>& direction, float t_min, float t_max);

}  // namespace batchsim::assets
