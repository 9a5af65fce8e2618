// NavQuery's internals, shared by nav_query.cpp and goal_corridor.cpp. Internal to src/nav:
// works on Detour types.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <DetourNavMeshQuery.h>

#include "nav/island_grid.hpp"
#include "nav/nav_query.hpp"
#include "nav/snap_cache.hpp"
#include "nav/start_snap.hpp"
#include "nav/surface_move.hpp"

namespace batchsim::nav {

// Half extents of the box searched when snapping a point to the navmesh (habitat-sim's
// polyPickExt): generous vertically, so points at camera height still snap to the floor.
inline constexpr float kSnapExtents[3] = {2.0f, 4.0f, 2.0f};
// habitat-sim's limits: polygons on one path (longer paths count as unreachable), A* nodes,
// and polygons one try_step may cross.
inline constexpr int kMaxPathPolys = 256;
inline constexpr int kNodePoolSize = 2048;
inline constexpr int kMaxStepPolys = 256;

struct NavQuery::Impl {
    std::shared_ptr<const NavMesh> mesh;
    std::unique_ptr<dtNavMeshQuery, void (*)(dtNavMeshQuery*)> query{dtAllocNavMeshQuery(),
                                                                     dtFreeNavMeshQuery};
    dtQueryFilter filter;
    std::vector<int> node_scratch;  // certify_search's, sized for the node pool
    StartSnap start_snap;           // corridor mode's shortcut past findNearestPoly
    SnapCache episode_snaps;        // goals and episode starts, snapped again and again
    IslandGrid island_grid;         // settles try_step's island checks without a query

    struct Snapped {
        dtPolyRef ref = 0;
        Vec3 point{};
    };
    Snapped nearest(const Vec3& point, const float* extents) const;
    // nearest(point, kSnapExtents), from episode_snaps where it was asked before.
    Snapped nearest_remembered(const Vec3& point);
    Snapped nearest_in_island(const Vec3& point, int island) const;
    float height_on(dtPolyRef ref, const Vec3& point) const;
    std::optional<SurfaceMove> move(const Snapped& from, const Vec3& end, bool allow_sliding);
    Vec3 nudge_towards_centre(dtPolyRef ref, const Vec3& point) const;
    std::optional<Snapped> proven_snap(dtPolyRef guess, const Vec3& point);
    // nearest(point), skipping the search where start_snap proves the answer from `guess`.
    Snapped snap_near(dtPolyRef guess, const Vec3& point);
    // snap_near(guess, point), answered from `memo` where it holds this very point, and
    // remembered there.
    Snapped remembered_snap(GoalCorridor::Snap& memo, dtPolyRef guess, const Vec3& point);
    bool nearest_on_island(const Vec3& point, int island) const;
    // Whether nearest(point) lies on `island`; with a memo, answered from it where it holds
    // the point, and a proven snap is remembered there.
    bool snaps_onto_island(dtPolyRef guess, const Vec3& point, int island,
                           GoalCorridor::Snap* memo = nullptr);
    // try_step. With guess 0 every snap searches; otherwise `guess` is the start's polygon
    // as far as known and becomes the result's, and snaps use start_snap and `memo` (null:
    // none): same result.
    Vec3 step(const Vec3& start, const Vec3& end, bool allow_sliding, dtPolyRef& guess,
              GoalCorridor::Snap* memo = nullptr);
    // goal_corridor.cpp: nearest(start, kSnapExtents), skipping the search where
    // start_snap.hpp shows the answer; the distance to the corridor's goal by a fresh search,
    // and by reusing the corridor where search_certificate.hpp allows.
    Snapped snap_start(GoalCorridor& corridor, const Vec3& start);
    float distance_to_goal(const Vec3& start, const GoalCorridor& corridor);
    float reuse_distance_to_goal(const Vec3& start, GoalCorridor& corridor);

    // geodesic_distance's answer when the snapped endpoints settle it without a search: +inf
    // off the navmesh or across islands, their distance when they are the same point.
    [[nodiscard]] std::optional<float> settled_distance(const Snapped& from,
                                                        const Snapped& to) const;
    // Detour's corridor between the snapped endpoints into polys[kMaxPathPolys]; false when
    // unreachable.
    bool search(const Snapped& from, const Snapped& to, dtPolyRef* polys, int* count);
    // String-pulls the corridor from `start` to `end` into corners[3 * kMaxPathPolys];
    // returns the corner count, 0 on failure.
    int straight_path(const Vec3& start, const Vec3& end, const dtPolyRef* polys, int count,
                      float* corners) const;
    // Length of straight_path's path, summed in double; +inf on failure.
    float path_length(const Vec3& start, const Vec3& end, const dtPolyRef* polys, int count) const;
};

}  // namespace batchsim::nav
