// Movement along the navmesh surface without wall sliding: habitat-sim's fork of Detour
// adds `allowSliding` to dtNavMeshQuery::moveAlongSurface; stock Detour lacks it, so this
// is that variant, written against stock Detour's data structures.
#pragma once

#include <optional>

#include <DetourNavMesh.h>
#include <DetourNavMeshQuery.h>

#include "nav/navmesh.hpp"

namespace batchsim::nav {

struct SurfaceMove {
    dtPolyRef polygon = 0;  // the polygon the move ended on
    Vec3 position{};        // y is unchanged: callers take it from the polygon's surface
};

// Moves from `start` (on polygon `start_ref`) towards `end`. Returns `end` when a polygon
// reachable through the portals that the straight segment crosses contains it; otherwise
// the point where the segment first meets a wall (the crossing nearest to `end`); nothing
// when the segment leaves the start polygon through no wall or portal.
std::optional<SurfaceMove> move_without_sliding(const dtNavMesh& mesh, const dtQueryFilter& filter,
                                                dtPolyRef start_ref, const Vec3& start,
                                                const Vec3& end);

}  // namespace batchsim::nav
