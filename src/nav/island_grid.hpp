// Which island a step's end snaps onto, settled from a coarse grid instead of a polygon query.
// Internal to src/nav.
//
// Why: try_step asks whether the step's end (and its landing point) snaps onto the start's
// island; where start_snap proves no answer, that costs a 4 x 8 x 4 m queryPolygons, which
// answers at once when every candidate lies on that island. The grid holds, per 1 m cell seen
// from above, the one island of all polygons whose bounds (widened past Detour's bounding-box
// quantization) reach the cell, or "mixed". If every cell under the box holds only `island`
// or nothing, every candidate queryPolygons could return lies on `island`; a known polygon
// inside the box makes the candidates non-empty, and the answer is "yes", as the query's.
#pragma once

#include <vector>

#include <DetourNavMeshQuery.h>

#include "nav/islands.hpp"
#include "nav/navmesh.hpp"

namespace batchsim::nav {

class IslandGrid {
public:
    // True only if findNearestPoly(point, half_extents) provably answers a polygon of
    // `island`: all polygons the box can hold are on it and `inside` (a polygon passing
    // `filter`) is one of them. False: not shown (ask Detour).
    bool settles(const dtNavMeshQuery& query, const dtQueryFilter& filter, const Islands& islands,
                 dtPolyRef inside, const Vec3& point, const float* half_extents, int island);

private:
    void build(const dtNavMesh& mesh, const dtQueryFilter& filter, const Islands& islands);
    void mark(const float* lo, const float* hi, int island);

    bool built_ = false;
    bool usable_ = false;
    float origin_[2] = {0, 0};  // x, z of cell (0, 0)'s corner
    int cols_ = 0, rows_ = 0;
    std::vector<int> cells_;  // [row * cols_ + col]: kEmpty, kMixed or the island (-1 too)
};

}  // namespace batchsim::nav
