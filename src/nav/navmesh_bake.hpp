// Navmesh baking with Recast, following habitat-sim's PathFinder::build, so that a mesh
// baked here and one baked by Habitat with the same NavMeshSettings agree.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace batchsim::nav {

// Habitat's NavMeshSettings with its defaults. Lengths in metres, angles in degrees.
struct NavMeshSettings {
    float cell_size = 0.05f;    // xz voxel size: walls are resolved to 5 cm
    float cell_height = 0.2f;   // y voxel size
    float agent_height = 1.5f;  // clearance the agent needs overhead
    float agent_radius = 0.1f;  // walls are eroded by this much
    float agent_max_climb = 0.2f;
    float agent_max_slope = 45.0f;
    float region_min_size = 20.0f;    // regions smaller than this (in cells, squared) vanish
    float region_merge_size = 20.0f;  // regions smaller than this merge into neighbours
    float edge_max_len = 12.0f;       // longest border edge of a polygon, in metres
    float edge_max_error = 1.3f;      // contour simplification tolerance, in cells
    int verts_per_poly = 6;
    float detail_sample_dist = 6.0f;       // in cells; < 0.9 disables detail sampling
    float detail_sample_max_error = 1.0f;  // in cell heights
    bool filter_low_hanging_obstacles = true;
    bool filter_ledge_spans = true;
    bool filter_walkable_low_height_spans = true;
};

// Throws Error(InvalidArgument) naming the first setting out of range.
void validate(const NavMeshSettings& settings);

// Bakes a single-tile navmesh of the triangles (xyz positions, 3 indices per triangle) and
// returns it as a Habitat .navmesh ("MSET") image. Throws Error(CorruptData) for empty or
// non-finite geometry, and when nothing is walkable.
std::vector<std::uint8_t> bake_navmesh(std::span<const float> positions,
                                       std::span<const std::uint32_t> indices,
                                       const NavMeshSettings& settings);

}  // namespace batchsim::nav
