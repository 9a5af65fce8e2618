#include "nav/string_pull.hpp"

#include <bit>
#include <cstdint>
#include <limits>

#include <DetourCommon.h>

#include "nav/islands.hpp"

namespace batchsim::nav {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();

// The first vertex of `poly`'s edge `edge` into both points (an off-mesh connection's end).
void copy_vertex(const dtMeshTile& tile, const dtPoly& poly, int edge, float* left, float* right) {
    dtVcopy(left, polygon_corner(tile, poly, edge));
    dtVcopy(right, polygon_corner(tile, poly, edge));
}

// dtNavMeshQuery::getPortalPoints (private there), float for float; the refs are a
// findPath corridor's, so valid.
bool portal_points(const dtNavMesh& mesh, dtPolyRef from, dtPolyRef to, float* left, float* right) {
    const dtMeshTile *from_tile = nullptr, *to_tile = nullptr;
    const dtPoly *from_poly = nullptr, *to_poly = nullptr;
    mesh.getTileAndPolyByRefUnsafe(from, &from_tile, &from_poly);
    mesh.getTileAndPolyByRefUnsafe(to, &to_tile, &to_poly);
    const dtLink* link = nullptr;
    for (unsigned i = from_poly->firstLink; i != DT_NULL_LINK && !link;
         i = from_tile->links[i].next)
        if (from_tile->links[i].ref == to) link = &from_tile->links[i];
    if (!link) return false;
    if (from_poly->getType() == DT_POLYTYPE_OFFMESH_CONNECTION) {
        copy_vertex(*from_tile, *from_poly, link->edge, left, right);
        return true;
    }
    if (to_poly->getType() == DT_POLYTYPE_OFFMESH_CONNECTION) {
        for (unsigned i = to_poly->firstLink; i != DT_NULL_LINK; i = to_tile->links[i].next)
            if (to_tile->links[i].ref == from) {
                copy_vertex(*to_tile, *to_poly, to_tile->links[i].edge, left, right);
                return true;
            }
        return false;
    }
    const float* v0 = polygon_corner(*from_tile, *from_poly, link->edge);
    const float* v1 =
        polygon_corner(*from_tile, *from_poly, (link->edge + 1) % int(from_poly->vertCount));
    dtVcopy(left, v0);
    dtVcopy(right, v1);
    if (link->side != 0xff && (link->bmin != 0 || link->bmax != 255)) {  // clamp to the link
        const float s = 1.0f / 255.0f;
        dtVlerp(left, v0, v1, static_cast<float>(link->bmin) * s);
        dtVlerp(right, v0, v1, static_cast<float>(link->bmax) * s);
    }
    return true;
}

// Detour's appendVertex outcomes: go on, finished (DT_SUCCESS), failed (anything else).
enum class Step { kMore, kDone, kFailed };

// One findStraightPath: its appendVertex state, the length so far, and the corners seen.
struct Pull {
    const dtNavMesh& mesh;
    GoalCorridor& corridor;
    int first;
    int max_corners;
    float last[3] = {};
    int count = 0;
    double length = 0;
    GoalCorridor::Corner seen[GoalCorridor::kMaxPulled];  // the corners after the start
    bool matched = false;

    Step append(const float* point, bool end, int apex);
    Step funnel(const float* start, const float* end);
    bool match(int apex);
    Step corner(float* apex, int& apex_index, float* left, float* right, bool end, int& li, int& ri,
                int& i);
};

// appendVertex: merges a point equal to the last one (that corner's rest then starts from
// another apex, so it is not reusable), else appends it; a full buffer fails.
Step Pull::append(const float* point, bool end, int apex) {
    if (count > 0 && dtVequal(last, point)) {
        if (count >= 2 && count - 2 < GoalCorridor::kMaxPulled) seen[count - 2].apex = -1;
        return Step::kMore;
    }
    if (count > 0) {
        const float step = dtVdist(last, point);
        length += step;
        if (count >= 2 && count - 2 < GoalCorridor::kMaxPulled) seen[count - 2].to_next = step;
    }
    dtVcopy(last, point);
    if (count >= 1 && count - 1 < GoalCorridor::kMaxPulled)
        seen[count - 1] = {{point[0], point[1], point[2]}, 0.0f, end ? -1 : apex};
    ++count;
    if (count >= max_corners) return Step::kFailed;
    if (end) return Step::kDone;
    if (apex < 0 || !match(apex)) return Step::kMore;  // the start is no corner
    return count >= max_corners ? Step::kFailed : Step::kDone;
}

// The corner just appended is one the last full pull appended in the same state: its rest
// follows (counted, for the buffer limit), and the length adds that pull's float
// distances in the same order.
bool Pull::match(int apex) {
    const int remembered = corridor.pulled_count;
    for (int k = 0; k < remembered; ++k) {
        const GoalCorridor::Corner& c = corridor.pulled[k];
        if (c.apex != apex || !same_bits(last, c.point)) continue;
        for (int j = k; j < remembered - 1; ++j) length += corridor.pulled[j].to_next;
        count += remembered - 1 - k;
        matched = true;
        return true;
    }
    return false;
}

// The funnel's apex moves to a portal side: append it and restart the funnel there.
Step Pull::corner(float* apex, int& apex_index, float* left, float* right, bool end, int& li,
                  int& ri, int& i) {
    const Step step = append(apex, end, first + apex_index);
    dtVcopy(left, apex);
    dtVcopy(right, apex);
    li = ri = apex_index;
    i = apex_index;
    return step;
}

// findStraightPath's funnel over the portals of polys[first..], with no options.
Step Pull::funnel(const float* start, const float* end) {
    const dtPolyRef* path = corridor.polys.data() + first;
    const int n = corridor.poly_count - first;
    float apex[3], left[3], right[3];
    dtVcopy(apex, start), dtVcopy(left, start), dtVcopy(right, start);
    int apex_index = 0, li = 0, ri = 0;
    bool left_end = false, right_end = false;  // the side is the end point (poly ref 0)
    for (int i = 0; i < n; ++i) {
        float l[3], r[3];
        if (i + 1 < n) {
            if (!portal_points(mesh, path[i], path[i + 1], l, r)) return Step::kFailed;
            float t = 0;  // starting really close to the portal: advance
            if (i == 0 && dtDistancePtSegSqr2D(apex, l, r, t) < dtSqr(0.001f)) continue;
        } else {
            dtVcopy(l, end), dtVcopy(r, end);
        }
        if (dtTriArea2D(apex, right, r) <= 0.0f) {
            if (dtVequal(apex, right) || dtTriArea2D(apex, left, r) > 0.0f) {
                dtVcopy(right, r), right_end = i + 1 >= n, ri = i;
            } else {
                dtVcopy(apex, left), apex_index = li;
                const Step step = corner(apex, apex_index, left, right, left_end, li, ri, i);
                if (step != Step::kMore) return step;
                continue;
            }
        }
        if (dtTriArea2D(apex, left, l) >= 0.0f) {
            if (dtVequal(apex, left) || dtTriArea2D(apex, right, l) < 0.0f) {
                dtVcopy(left, l), left_end = i + 1 >= n, li = i;
            } else {
                dtVcopy(apex, right), apex_index = ri;
                const Step step = corner(apex, apex_index, left, right, right_end, li, ri, i);
                if (step != Step::kMore) return step;
            }
        }
    }
    return Step::kMore;
}

}  // namespace

float pulled_length(const dtNavMeshQuery& query, const Vec3& start, const Vec3& end,
                    GoalCorridor& corridor, int first, int max_corners) {
    const int n = corridor.poly_count - first;
    if (!dtVisfinite(start.data()) || !dtVisfinite(end.data()) || n <= 0 ||
        corridor.polys[first] == 0 || max_corners <= 0)
        return kInfinity;
    float from[3], to[3];
    if (dtStatusFailed(
            query.closestPointOnPolyBoundary(corridor.polys[first], start.data(), from)) ||
        dtStatusFailed(
            query.closestPointOnPolyBoundary(corridor.polys[first + n - 1], end.data(), to)))
        return kInfinity;
    Pull pull{*query.getAttachedNavMesh(), corridor, first, max_corners};
    Step step = pull.append(from, false, -1);
    if (step == Step::kMore && n > 1) step = pull.funnel(from, to);
    if (step == Step::kMore) {
        pull.append(to, true, -1);  // its status is ignored, as in Detour
        step = pull.count >= max_corners ? Step::kFailed : Step::kDone;
    }
    if (step == Step::kFailed) {
        corridor.pulled_count = 0;
        return kInfinity;
    }
    if (!pull.matched) {  // remember this pull's corners, where they fit
        const int corners = pull.count - 1;
        corridor.pulled_count = corners <= GoalCorridor::kMaxPulled ? corners : 0;
        for (int k = 0; k < corridor.pulled_count; ++k) corridor.pulled[k] = pull.seen[k];
    }
    return static_cast<float>(pull.length);
}

}  // namespace batchsim::nav
