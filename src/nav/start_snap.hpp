// findNearestPoly's answer without its search, where it is provably a polygon the caller
// guesses (the agent's polygon at its last step, or a neighbour). Internal to src/nav.
//
// Why: snapping the start with Habitat's 4 x 8 x 4 m box costs a closest-point test against
// every polygon in the box, which dominates a corridor-mode query that reuses its path.
// findNearestPoly scores a polygon the point is over by max(|dy| - climb, 0)^2 and any other
// by the squared distance to its boundary, and keeps the first best. If nothing overlaps
// polygon A seen from above (polygons a storey away score far higher), polygons not touching
// A are farther than kTouchDistance from it, the point is farther than that from each
// polygon touching A, and A scores below (kTouchDistance / 4)^2 (the point is over A within
// climb height, or just outside it, as agents sliding along walls are), then A is the unique
// best: the answer is A and A's closest point, bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include <DetourNavMeshQuery.h>

#include "nav/navmesh.hpp"

namespace batchsim::nav {

class StartSnap {
public:
    // If findNearestPoly(point) provably answers `guess` or, when the point lies over one, a
    // neighbour of `guess`: sets `ref` and `snapped` to its answer and returns true.
    bool snap(const dtNavMeshQuery& query, const dtQueryFilter& filter, dtPolyRef guess,
              const Vec3& point, dtPolyRef& ref, Vec3& snapped);

private:
    // Per polygon: whether nothing overlaps it, and which polygons touch it (in touching_).
    struct Polygon {
        std::int32_t first = 0;
        std::uint8_t count = 0;
        std::uint8_t state = 0;  // kUnknown, kAlone or kCrowded
    };
    static constexpr std::uint8_t kUnknown = 0, kAlone = 1, kCrowded = 2;

    bool snap_onto(const dtNavMeshQuery& query, const dtQueryFilter& filter, dtPolyRef ref,
                   const Vec3& point, Vec3& snapped);
    const Polygon& describe(const dtNavMeshQuery& query, const dtQueryFilter& filter,
                            dtPolyRef ref);
    void allocate(const dtNavMesh& mesh);

    // Filled on first use, never grown after: tile_first_[tile] indexes polygons_.
    std::vector<int> tile_first_;
    std::vector<Polygon> polygons_;
    std::vector<dtPolyRef> touching_;  // capacity fixed at allocation
};

}  // namespace batchsim::nav
