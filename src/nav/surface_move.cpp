#include "nav/surface_move.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include <DetourCommon.h>

#include "nav/islands.hpp"

namespace batchsim::nav {
namespace {

// The polygons across edge `edge` of `poly` that pass the filter (internal neighbour or
// links to other tiles), as Detour's moveAlongSurface collects them.
std::vector<dtPolyRef> neighbours(const dtNavMesh& mesh, const dtQueryFilter& filter,
                                  const dtMeshTile& tile, const dtPoly& poly, int edge) {
    std::vector<dtPolyRef> out;
    auto accept = [&](dtPolyRef ref) {
        const dtMeshTile* next_tile = nullptr;
        const dtPoly* next_poly = nullptr;
        mesh.getTileAndPolyByRefUnsafe(ref, &next_tile, &next_poly);
        // dtQueryFilter::passFilter is inline in Detour's .cpp, so not callable from here.
        if ((next_poly->flags & filter.getIncludeFlags()) != 0 &&
            (next_poly->flags & filter.getExcludeFlags()) == 0)
            out.push_back(ref);
    };
    if (poly.neis[edge] & DT_EXT_LINK) {
        for (unsigned l = poly.firstLink; l != DT_NULL_LINK; l = tile.links[l].next)
            if (tile.links[l].edge == edge && tile.links[l].ref != 0) accept(tile.links[l].ref);
    } else if (poly.neis[edge] != 0) {
        accept(mesh.getPolyRefBase(&tile) | static_cast<dtPolyRef>(poly.neis[edge] - 1));
    }
    return out;
}

// Where segment start->end crosses edge p->q, as the parameter along the edge.
std::optional<float> crossing(const Vec3& start, const Vec3& end, const float* p, const float* q) {
    float along_segment = 0, along_edge = 0;
    if (!dtIntersectSegSeg2D(start.data(), end.data(), p, q, along_segment, along_edge))
        return std::nullopt;
    if (along_segment < 0 || along_segment > 1 || along_edge < 0 || along_edge > 1)
        return std::nullopt;
    return along_edge;
}

}  // namespace

std::optional<SurfaceMove> move_without_sliding(const dtNavMesh& mesh, const dtQueryFilter& filter,
                                                dtPolyRef start_ref, const Vec3& start,
                                                const Vec3& end) {
    // Stock Detour's search constraint: portals must lie near the segment's midpoint.
    float middle[3];
    dtVlerp(middle, start.data(), end.data(), 0.5f);
    const float radius = dtVdist(start.data(), end.data()) / 2 + 0.001f;
    std::optional<SurfaceMove> best;
    float best_distance = std::numeric_limits<float>::max();
    std::vector<dtPolyRef> queue{start_ref};
    for (std::size_t next = 0; next < queue.size(); ++next) {
        const dtMeshTile* tile = nullptr;
        const dtPoly* poly = nullptr;
        mesh.getTileAndPolyByRefUnsafe(queue[next], &tile, &poly);
        float corners[3 * DT_VERTS_PER_POLYGON];
        const int n = copy_polygon_corners(*tile, *poly, corners);
        if (dtPointInPolygon(end.data(), corners, n)) return SurfaceMove{queue[next], end};
        for (int i = 0, j = n - 1; i < n; j = i++) {
            const float* p = &corners[std::size_t(j) * 3];
            const float* q = &corners[std::size_t(i) * 3];
            const std::optional<float> cross = crossing(start, end, p, q);
            const std::vector<dtPolyRef> across = neighbours(mesh, filter, *tile, *poly, j);
            if (across.empty()) {  // a wall: stop where the segment meets it
                if (!cross) continue;
                SurfaceMove hit{queue[next], {}};
                dtVlerp(hit.position.data(), p, q, *cross);
                const float distance = dtVdist2DSqr(hit.position.data(), end.data());
                if (distance < best_distance) best_distance = distance, best = hit;
                continue;
            }
            float unused = 0;
            if (!cross || dtDistancePtSegSqr2D(middle, p, q, unused) > radius * radius) continue;
            for (dtPolyRef ref : across)
                if (std::find(queue.begin(), queue.end(), ref) == queue.end()) queue.push_back(ref);
        }
    }
    return best;
}

}  // namespace batchsim::nav
