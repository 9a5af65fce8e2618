#include "nav/start_snap.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <DetourCommon.h>

#include "nav/islands.hpp"

namespace batchsim::nav {
namespace {

// Polygons nearer than this to the start polygon, seen from above, touch it, and a point
// must stay farther than this from them, in metres. Any positive distance keeps their score
// above 0; this one is far above float rounding.
constexpr float kTouchDistance = 1e-3f;
// A start polygon scoring below this beats every other polygon: those not touching it are
// farther than kTouchDistance from it, so more than 3/4 of that from the point.
constexpr float kWinningScore = (kTouchDistance / 4) * (kTouchDistance / 4);
// A point this far inside the start polygon is farther than kTouchDistance from all polygons
// touching it (they overlap it by less than kOverlapTolerance), in metres.
constexpr float kClearOfTouching = 2 * kTouchDistance;
// Outlines overlapping by less than this (shared edges, rounding) merely touch, in metres.
constexpr float kOverlapTolerance = 1e-4f;
// A polygon more than 2 x climb + this above or below the start polygon cannot score 0 for a
// point within climb of the start polygon, in metres.
constexpr float kStackGap = 0.01f;
// Extra height searched for candidates: bounding boxes may use polygon corners, whose heights
// differ from the detail surface's, in metres.
constexpr float kDetailSlack = 1.0f;
constexpr int kMaxCandidates = 512;
// Room reserved for the polygons touching each polygon, on average; never grown.
constexpr std::size_t kTouchingPerPolygon = 8;
constexpr int kMaxTouching = 16;  // more and a polygon counts as crowded

struct Shape {
    const dtMeshTile* tile = nullptr;
    const dtPoly* poly = nullptr;
    [[nodiscard]] const float* vertex(int k) const { return polygon_corner(*tile, *poly, k); }
};

Shape shape(const dtNavMesh& mesh, dtPolyRef ref) {
    Shape out;
    mesh.getTileAndPolyByRefUnsafe(ref, &out.tile, &out.poly);
    return out;
}

// Lowest and highest point of a polygon's detail surface.
std::pair<float, float> height_range(const Shape& p) {
    float lo = p.vertex(0)[1], hi = lo;
    for (int k = 1; k < p.poly->vertCount; ++k)
        lo = std::min(lo, p.vertex(k)[1]), hi = std::max(hi, p.vertex(k)[1]);
    const dtPolyDetail& detail = p.tile->detailMeshes[p.poly - p.tile->polys];
    for (unsigned k = 0; k < detail.vertCount; ++k) {
        const float y = p.tile->detailVerts[(detail.vertBase + k) * 3 + 1];
        lo = std::min(lo, y), hi = std::max(hi, y);
    }
    return {lo, hi};
}

// Squared distance seen from above from `point` to the polygon's boundary.
float boundary_distance_sqr(const Shape& p, const float* point) {
    float best = std::numeric_limits<float>::infinity();
    for (int i = 0, j = p.poly->vertCount - 1; i < p.poly->vertCount; j = i++) {
        float t = 0;
        best = std::min(best, dtDistancePtSegSqr2D(point, p.vertex(j), p.vertex(i), t));
    }
    return best;
}

// True if an edge normal of `a` separates the convex polygons seen from above, up to
// kOverlapTolerance of overlap.
bool separated_along_edges_of(const Shape& a, const Shape& b) {
    for (int i = 0, j = a.poly->vertCount - 1; i < a.poly->vertCount; j = i++) {
        const float nx = a.vertex(i)[2] - a.vertex(j)[2], nz = a.vertex(j)[0] - a.vertex(i)[0];
        const float length = std::hypot(nx, nz);
        if (length == 0) continue;
        auto project = [&](const Shape& p) {
            float lo = std::numeric_limits<float>::infinity(), hi = -lo;
            for (int k = 0; k < p.poly->vertCount; ++k) {
                const float d = (p.vertex(k)[0] * nx + p.vertex(k)[2] * nz) / length;
                lo = std::min(lo, d), hi = std::max(hi, d);
            }
            return std::pair{lo, hi};
        };
        const auto [alo, ahi] = project(a);
        const auto [blo, bhi] = project(b);
        if (std::min(ahi, bhi) - std::max(alo, blo) < kOverlapTolerance) return true;
    }
    return false;
}

// Squared distance seen from above between polygons that do not overlap: vertex to edge.
float distance_sqr_between(const Shape& a, const Shape& b) {
    float best = std::numeric_limits<float>::infinity();
    for (int k = 0; k < a.poly->vertCount; ++k)
        best = std::min(best, boundary_distance_sqr(b, a.vertex(k)));
    for (int k = 0; k < b.poly->vertCount; ++k)
        best = std::min(best, boundary_distance_sqr(a, b.vertex(k)));
    return best;
}

// dtQueryFilter::passFilter, which Debian's Detour does not export.
bool walkable(const dtQueryFilter& filter, const dtPoly& poly) {
    return (poly.flags & filter.getIncludeFlags()) != 0 &&
           (poly.flags & filter.getExcludeFlags()) == 0;
}

// Whether the point lies over the polygon, seen from above.
bool over(const Shape& p, const Vec3& point) {
    float corners[3 * DT_VERTS_PER_POLYGON];
    return dtPointInPolygon(point.data(), corners, copy_polygon_corners(*p.tile, *p.poly, corners));
}

// Up to kMaxTouching polygons touching `a` (seen from above) into `out`; false when some
// polygon overlaps `a` or there are more.
bool find_touching(const dtNavMeshQuery& query, const dtQueryFilter& filter, dtPolyRef ref,
                   dtPolyRef* out, int& count) {
    const dtNavMesh& mesh = *query.getAttachedNavMesh();
    const Shape a = shape(mesh, ref);
    const auto [ylo, yhi] = height_range(a);
    const float reach = 2 * a.tile->header->walkableClimb + kStackGap;
    float lo[3] = {a.vertex(0)[0], ylo - reach, a.vertex(0)[2]};
    float hi[3] = {lo[0], yhi + reach, lo[2]};
    for (int k = 1; k < a.poly->vertCount; ++k)
        for (int i : {0, 2})
            lo[i] = std::min(lo[i], a.vertex(k)[i]), hi[i] = std::max(hi[i], a.vertex(k)[i]);
    float centre[3], extents[3];
    for (int i = 0; i < 3; ++i)
        centre[i] = (lo[i] + hi[i]) * 0.5f, extents[i] = (hi[i] - lo[i]) * 0.5f + kTouchDistance;
    extents[1] += kDetailSlack;
    dtPolyRef candidates[kMaxCandidates];
    int found = 0;
    query.queryPolygons(centre, extents, &filter, candidates, &found, kMaxCandidates);
    if (found == kMaxCandidates) return false;
    count = 0;
    for (int i = 0; i < found; ++i) {
        if (candidates[i] == ref) continue;
        const Shape b = shape(mesh, candidates[i]);
        if (b.poly->getType() == DT_POLYTYPE_OFFMESH_CONNECTION) return false;
        const auto [blo, bhi] = height_range(b);
        if (blo > yhi + reach || bhi < ylo - reach) continue;  // another storey
        if (!separated_along_edges_of(a, b) && !separated_along_edges_of(b, a)) return false;
        if (distance_sqr_between(a, b) > kTouchDistance * kTouchDistance) continue;
        if (count == kMaxTouching) return false;
        out[count++] = candidates[i];
    }
    return true;
}

}  // namespace

void StartSnap::allocate(const dtNavMesh& mesh) {
    const int tiles = mesh.getMaxTiles();
    tile_first_.assign(std::size_t(tiles) + 1, 0);
    for (int i = 0; i < tiles; ++i) {
        const dtMeshTile* tile = mesh.getTile(i);
        tile_first_[i + 1] = tile_first_[i] + (tile->header ? tile->header->polyCount : 0);
    }
    polygons_.assign(std::size_t(tile_first_.back()), Polygon{});
    touching_.reserve(polygons_.size() * kTouchingPerPolygon);
}

const StartSnap::Polygon& StartSnap::describe(const dtNavMeshQuery& query,
                                              const dtQueryFilter& filter, dtPolyRef ref) {
    const dtNavMesh& mesh = *query.getAttachedNavMesh();
    if (polygons_.empty()) allocate(mesh);
    const Shape a = shape(mesh, ref);
    Polygon& entry = polygons_[tile_first_[a.tile - mesh.getTile(0)] + (a.poly - a.tile->polys)];
    if (entry.state != kUnknown) return entry;
    entry.state = kCrowded;
    dtPolyRef touching[kMaxTouching];
    int count = 0;
    if (a.poly->getType() == DT_POLYTYPE_OFFMESH_CONNECTION || !walkable(filter, *a.poly) ||
        !find_touching(query, filter, ref, touching, count) ||
        touching_.size() + count > touching_.capacity())
        return entry;
    entry.first = std::int32_t(touching_.size());
    entry.count = std::uint8_t(count);
    entry.state = kAlone;
    touching_.insert(touching_.end(), touching, touching + count);
    return entry;
}

bool StartSnap::snap_onto(const dtNavMeshQuery& query, const dtQueryFilter& filter, dtPolyRef ref,
                          const Vec3& point, Vec3& snapped) {
    const Polygon& entry = describe(query, filter, ref);
    if (entry.state != kAlone) return false;
    const dtNavMesh& mesh = *query.getAttachedNavMesh();
    const Shape a = shape(mesh, ref);
    // Well inside A (or far from it, which fails below) no touching polygon is near.
    if (!(boundary_distance_sqr(a, point.data()) > kClearOfTouching * kClearOfTouching))
        for (int i = entry.first; i < entry.first + entry.count; ++i)
            if (!(boundary_distance_sqr(shape(mesh, touching_[i]), point.data()) >
                  kTouchDistance * kTouchDistance))
                return false;  // also for NaN
    bool is_over = false;
    if (dtStatusFailed(query.closestPointOnPoly(ref, point.data(), snapped.data(), &is_over)))
        return false;
    // findNearestPoly's score, computed as it does.
    float diff[3];
    dtVsub(diff, point.data(), snapped.data());
    float score = dtVlenSqr(diff);
    if (is_over) {
        score = dtAbs(diff[1]) - a.tile->header->walkableClimb;
        score = score > 0 ? score * score : 0;
    }
    return score < kWinningScore;
}

bool StartSnap::snap(const dtNavMeshQuery& query, const dtQueryFilter& filter, dtPolyRef guess,
                     const Vec3& point, dtPolyRef& ref, Vec3& snapped) {
    if (guess == 0) return false;
    if (snap_onto(query, filter, guess, point, snapped)) {
        ref = guess;
        return true;
    }
    // The agent may have stepped into a neighbour: try the one it is over.
    const dtNavMesh& mesh = *query.getAttachedNavMesh();
    const Shape last = shape(mesh, guess);
    for (unsigned k = last.poly->firstLink; k != DT_NULL_LINK; k = last.tile->links[k].next) {
        const dtPolyRef next = last.tile->links[k].ref;
        if (next == 0 || !over(shape(mesh, next), point)) continue;
        if (!snap_onto(query, filter, next, point, snapped)) return false;
        ref = next;
        return true;
    }
    return false;
}

}  // namespace batchsim::nav
