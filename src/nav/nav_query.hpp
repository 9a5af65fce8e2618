// NavQuery: navigation queries with habitat-sim PathFinder semantics. Each owns a Detour
// query object with its own search state, so use one per thread; all of them share one
// read-only NavMesh.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "core/random.hpp"
#include "nav/goal_corridor.hpp"
#include "nav/navmesh.hpp"

namespace batchsim::nav {

// Top-down occupancy as habitat-sim's get_topdown_view: cell (r, c) is the point
// (bounds.min.x + c * mpp, height, bounds.min.z + r * mpp).
struct TopDownView {
    int rows = 0;
    int cols = 0;
    std::vector<std::uint8_t> navigable;  // rows * cols, row-major; 1 where navigable
};

class NavQuery {
public:
    explicit NavQuery(std::shared_ptr<const NavMesh> mesh);
    NavQuery(const NavQuery&) = delete;
    NavQuery& operator=(const NavQuery&) = delete;
    NavQuery(NavQuery&&) noexcept;
    ~NavQuery();

    [[nodiscard]] const NavMesh& mesh() const;

    // The nearest navmesh point within Habitat's search box (restricted to `island` when
    // >= 0), or nothing.
    std::optional<Vec3> snap_point(const Vec3& point, int island = -1);
    // True if a navmesh point lies directly below/above `point` within max_y_delta.
    bool is_navigable(const Vec3& point, float max_y_delta = 0.5f);
    // The island under snap_point(point), or -1 off the navmesh.
    int island_of(const Vec3& point);
    // A uniformly distributed (area-weighted) navmesh point, on `island` when >= 0.
    Vec3 random_point(Rng& rng, int island = -1);
    // Shortest path on the navmesh between the snapped endpoints: corner points from
    // start to end, or empty when unreachable (off the mesh, different islands).
    std::vector<Vec3> find_path(const Vec3& start, const Vec3& end);
    // Length of find_path's path; +inf when unreachable, never NaN.
    float geodesic_distance(const Vec3& start, const Vec3& end);
    // Starts tracking `goal` in `corridor` (drops any cached path).
    void set_goal(GoalCorridor& corridor, const Vec3& goal);
    // geodesic_distance(start, corridor goal). Exact: a fresh search, bit-identical to
    // geodesic_distance(); the cache is left alone. Otherwise the same value (bit for bit in
    // every measured walk), cheaper: it string-pulls the rest of the previous search's
    // corridor from the start's polygon on where a fresh search is shown to return that rest
    // (search_certificate.hpp) and reuses the last string pull's corners where the pull
    // reaches one in the same state (string_pull.hpp), skips findNearestPoly where its answer
    // is known (start_snap.hpp; this NavQuery then keeps about 40 bytes per polygon, and a
    // 112 KiB cache of goal and episode-start snaps), and answers a repeated start from
    // memory. Throws Error(InvalidArgument) unless set_goal was called on
    // `corridor` by a NavQuery of this navmesh.
    float geodesic_distance(const Vec3& start, GoalCorridor& corridor, bool exact = false);
    // Moves from `start` towards `end` on the surface. With sliding the agent slides along
    // walls it hits; without it stops at the first wall. Returns the position reached, or
    // `start` unchanged when either end is off the navmesh or they lie on different islands.
    Vec3 try_step(const Vec3& start, const Vec3& end, bool allow_sliding = true);
    // try_step for an agent whose goal `corridor` tracks: the same result, bit for bit, with
    // its navmesh snaps answered from the agent's last polygon where start_snap.hpp proves
    // them, or from the agent's last snap of the same point, and a repeated step (same
    // start, end and sliding) answered from memory. Throws like
    // geodesic_distance(start, corridor).
    Vec3 try_step(const Vec3& start, const Vec3& end, bool allow_sliding, GoalCorridor& corridor);
    // Distance from the snapped point to the nearest navmesh boundary, capped at
    // max_search_radius; 0 off the navmesh.
    float distance_to_closest_obstacle(const Vec3& point, float max_search_radius = 2.0f);
    // Occupancy grid of the navmesh bounds at `height`: a cell is navigable if
    // is_navigable(cell point, max_y_delta) holds.
    TopDownView topdown_view(float meters_per_pixel, float height, float max_y_delta = 0.5f);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace batchsim::nav
