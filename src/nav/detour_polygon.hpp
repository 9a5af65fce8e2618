// Small pieces of Detour's polygon access that its query keeps private (or Debian's build
// does not export), re-implemented float for float. Internal to src/nav.
#pragma once

#include <DetourCommon.h>
#include <DetourNavMesh.h>
#include <DetourNavMeshQuery.h>

#include "nav/islands.hpp"
#include "nav/navmesh.hpp"

namespace batchsim::nav {

struct Polygon {
    const dtMeshTile* tile = nullptr;
    const dtPoly* poly = nullptr;
};

inline Polygon polygon(const dtNavMesh& mesh, dtPolyRef ref) {
    Polygon out;
    mesh.getTileAndPolyByRefUnsafe(ref, &out.tile, &out.poly);
    return out;
}

// dtQueryFilter::passFilter, which Debian's Detour does not export.
inline bool walkable(const dtQueryFilter& filter, const dtPoly& poly) {
    return (poly.flags & filter.getIncludeFlags()) != 0 &&
           (poly.flags & filter.getExcludeFlags()) == 0;
}

// dtNavMeshQuery::getEdgeMidPoint (private there), float for float: the midpoint of the
// portal of the first link from `from` to `to`. False for off-mesh connections.
inline bool edge_midpoint(const dtNavMesh& mesh, const Polygon& from, dtPolyRef to, Vec3& mid) {
    const dtMeshTile& tile = *from.tile;
    for (unsigned k = from.poly->firstLink; k != DT_NULL_LINK; k = tile.links[k].next) {
        const dtLink& link = tile.links[k];
        if (link.ref != to) continue;
        if (from.poly->getType() == DT_POLYTYPE_OFFMESH_CONNECTION ||
            polygon(mesh, to).poly->getType() == DT_POLYTYPE_OFFMESH_CONNECTION)
            return false;
        const float* v0 = polygon_corner(tile, *from.poly, link.edge);
        const float* v1 = polygon_corner(tile, *from.poly, (link.edge + 1) % from.poly->vertCount);
        float left[3], right[3];
        dtVcopy(left, v0);
        dtVcopy(right, v1);
        if (link.side != 0xff && (link.bmin != 0 || link.bmax != 255)) {
            const float s = 1.0f / 255.0f;
            dtVlerp(left, v0, v1, float(link.bmin) * s);
            dtVlerp(right, v0, v1, float(link.bmax) * s);
        }
        for (int i = 0; i < 3; ++i) mid[i] = (left[i] + right[i]) * 0.5f;
        return true;
    }
    return false;
}

}  // namespace batchsim::nav
