// The floors of a navmesh: heights where much walkable area lies. Multi-storey scans have
// several; stairs and ramps spread a little area between them.
#pragma once

#include <vector>

#include "nav/navmesh.hpp"

namespace batchsim::nav {

struct FloorOptions {
    // A floor holds at least this share of the walkable area (stairs and ramps hold less).
    float min_area_share = 0.05f;
    // Levels closer than this are one floor (Habitat's agent height: a storey is taller).
    float min_separation = 1.5f;
    // Polygon heights are gathered in bins of this size (metres) to find the peaks.
    float bin = 0.1f;
};

// Floor heights, lowest first: the area-weighted mean height of the walkable polygons near
// each peak of the area-by-height histogram. Empty only for a navmesh with no walkable area.
std::vector<float> floor_heights(const NavMesh& mesh, const FloorOptions& options = {});

}  // namespace batchsim::nav
