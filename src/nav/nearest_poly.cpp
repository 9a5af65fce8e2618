#include "nav/nearest_poly.hpp"

#include <algorithm>
#include <cfloat>
#include <cstddef>

#include <DetourCommon.h>
#include <DetourNavMesh.h>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "nav/islands.hpp"

namespace batchsim::nav {
namespace {

// Bounds are lowered by these relative and absolute (m^2) slacks so that float rounding in
// Detour's own score can never make a skipped polygon the true best.
constexpr float kRelativeSlack = 1.0f - 1e-4f;
constexpr float kAbsoluteSlack = 1e-6f;
constexpr int kMaxCandidates = 512;

// max(distance from point to the box of the polygon's vertices and detail vertices - climb,
// 0)^2: no more than findNearestPoly's score of that polygon.
float score_lower_bound(const dtMeshTile& tile, const dtPoly& poly, const float* point) {
    float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    for (int k = 0; k < poly.vertCount; ++k) {
        dtVmin(lo, polygon_corner(tile, poly, k));
        dtVmax(hi, polygon_corner(tile, poly, k));
    }
    const dtPolyDetail& detail = tile.detailMeshes[&poly - tile.polys];
    for (std::size_t k = 0; k < detail.vertCount; ++k) {
        const float* vertex = &tile.detailVerts[(std::size_t(detail.vertBase) + k) * 3];
        dtVmin(lo, vertex);
        dtVmax(hi, vertex);
    }
    float outside_sqr = 0;
    for (int a = 0; a < 3; ++a) {
        const float gap = std::max({lo[a] - point[a], point[a] - hi[a], 0.0f});
        outside_sqr += gap * gap;
    }
    const float beyond_climb = std::max(dtMathSqrtf(outside_sqr) - tile.header->walkableClimb, 0.f);
    return std::max(beyond_climb * beyond_climb * kRelativeSlack - kAbsoluteSlack, 0.0f);
}

// findNearestPoly's score of one polygon (Detour's dtFindNearestPolyQuery::process).
float score(const dtNavMeshQuery& query, const dtMeshTile& tile, dtPolyRef ref,
            const float* point) {
    float closest[3], diff[3];
    bool over = false;
    query.closestPointOnPoly(ref, point, closest, &over);
    dtVsub(diff, point, closest);
    if (!over) return dtVlenSqr(diff);
    const float d = dtAbs(diff[1]) - tile.header->walkableClimb;
    return d > 0 ? d * d : 0;
}

}  // namespace

dtPolyRef nearest_polygon(const dtNavMeshQuery& query, const float* point,
                          const dtPolyRef* candidates, int count) {
    BATCHSIM_CHECK(count <= kMaxCandidates, Internal,
                   str("nearest_polygon takes at most ", kMaxCandidates, " polygons, got ", count));
    if (count <= 0) return 0;
    const dtNavMesh& mesh = *query.getAttachedNavMesh();
    const dtMeshTile* tiles[kMaxCandidates];
    float bounds[kMaxCandidates];
    int seed = 0;  // the candidate with the lowest bound: likely the best, scored first
    for (int i = 0; i < count; ++i) {
        const dtPoly* poly = nullptr;
        mesh.getTileAndPolyByRefUnsafe(candidates[i], &tiles[i], &poly);
        bounds[i] = score_lower_bound(*tiles[i], *poly, point);
        if (bounds[i] < bounds[seed]) seed = i;
    }
    // Any candidate scoring below the seed's score has a bound below it too.
    const float reached = score(query, *tiles[seed], candidates[seed], point);
    dtPolyRef best = 0;
    float best_score = FLT_MAX;
    for (int i = 0; i < count; ++i) {
        if (bounds[i] > std::min(reached, best_score)) continue;
        const float s = i == seed ? reached : score(query, *tiles[i], candidates[i], point);
        if (s < best_score) best_score = s, best = candidates[i];
    }
    return best;
}

}  // namespace batchsim::nav
