// NavQuery's geodesic distances to a goal tracked in a GoalCorridor.
#include <bit>
#include <cstdint>
#include <limits>

#include "core/check.hpp"
#include "nav/goal_corridor.hpp"
#include "nav/nav_query.hpp"
#include "nav/nav_query_impl.hpp"
#include "nav/search_certificate.hpp"
#include "nav/start_snap.hpp"
#include "nav/string_pull.hpp"

namespace batchsim::nav {

namespace {

constexpr float kUnreachable = std::numeric_limits<float>::infinity();

}  // namespace

static_assert(GoalCorridor::kMaxPolys == kMaxPathPolys);

NavQuery::Impl::Snapped NavQuery::Impl::nearest_remembered(const Vec3& point) {
    if (const SnapCache::Entry* entry = episode_snaps.find(point))
        return {entry->ref, entry->snapped};
    const Snapped out = nearest(point, kSnapExtents);
    episode_snaps.store(point, out.point, out.ref);
    return out;
}

NavQuery::Impl::Snapped NavQuery::Impl::snap_start(GoalCorridor& corridor, const Vec3& start) {
    GoalCorridor::Snap& memo = corridor.last_snap;
    Snapped out{memo.ref, memo.snapped};
    if (memo.ref == 0 || !same_bits(start, memo.point)) {
        if (corridor.start_poly == 0)  // an episode's start: asked again whenever it restarts
            out = nearest_remembered(start);
        else if (!start_snap.snap(*query, filter, corridor.start_poly, start, out.ref, out.point))
            out = nearest(start, kSnapExtents);
        if (out.ref != 0) memo = {start, out.point, out.ref};
    }
    corridor.start_poly = out.ref;
    return out;
}

void NavQuery::set_goal(GoalCorridor& corridor, const Vec3& goal) {
    const Impl::Snapped snapped = impl_->nearest_remembered(goal);
    corridor.mesh = impl_->mesh.get();
    corridor.goal = goal;
    corridor.goal_point = snapped.point;
    corridor.goal_poly = snapped.ref;
    corridor.poly_count = 0;
    corridor.rival_count = 0;
    corridor.link_count = 0;
    corridor.start_poly = 0;  // may be another mesh's
    corridor.last_snap = {};
    corridor.last_step = {};
    corridor.pulled_count = 0;
    corridor.has_last = false;
}

float NavQuery::geodesic_distance(const Vec3& start, GoalCorridor& corridor, bool exact) {
    BATCHSIM_CHECK(corridor.mesh == impl_->mesh.get(), InvalidArgument,
                   "GoalCorridor: call set_goal with a NavQuery of this navmesh first");
    if (exact) return impl_->distance_to_goal(start, corridor);
    if (corridor.has_last && same_bits(start, corridor.last_start)) return corridor.last_distance;
    corridor.last_distance = impl_->reuse_distance_to_goal(start, corridor);
    corridor.last_start = start;
    corridor.has_last = true;
    return corridor.last_distance;
}

Vec3 NavQuery::try_step(const Vec3& start, const Vec3& end, bool allow_sliding,
                        GoalCorridor& corridor) {
    BATCHSIM_CHECK(corridor.mesh == impl_->mesh.get(), InvalidArgument,
                   "GoalCorridor: call set_goal with a NavQuery of this navmesh first");
    GoalCorridor::Step& last = corridor.last_step;
    if (last.valid && last.allow_sliding == allow_sliding && same_bits(start, last.start) &&
        same_bits(end, last.end))
        return last.reached;  // start_poly still names a polygon near it: only a hint
    dtPolyRef guess = corridor.start_poly;
    if (guess == 0)  // first step: search once
        guess = impl_->remembered_snap(corridor.last_snap, 0, start).ref;
    const Vec3 reached = impl_->step(start, end, allow_sliding, guess, &corridor.last_snap);
    corridor.start_poly = guess;
    last = {start, end, reached, allow_sliding, true};
    return reached;
}

float NavQuery::Impl::distance_to_goal(const Vec3& start, const GoalCorridor& corridor) {
    const Snapped from = nearest(start, kSnapExtents);
    const Snapped to{corridor.goal_poly, corridor.goal_point};
    if (const std::optional<float> settled = settled_distance(from, to)) return *settled;
    dtPolyRef polys[kMaxPathPolys];
    int count = 0;
    if (!search(from, to, polys, &count)) return kUnreachable;
    return path_length(start, corridor.goal, polys, count);
}

float NavQuery::Impl::reuse_distance_to_goal(const Vec3& start, GoalCorridor& corridor) {
    const Snapped from = snap_start(corridor, start);
    const Snapped to{corridor.goal_poly, corridor.goal_point};
    if (const std::optional<float> settled = settled_distance(from, to)) return *settled;
    int first = repeated_suffix(corridor, mesh->detour(), filter, from.ref, from.point);
    if (first < 0) {
        first = 0;
        corridor.pulled_count = 0;  // its corners belong to the old polys
        if (!search(from, to, corridor.polys.data(), &corridor.poly_count)) {
            corridor.poly_count = 0;
            return kUnreachable;
        }
        certify_search(*query, filter, corridor, node_scratch);
    }
    return pulled_length(*query, start, corridor.goal, corridor, first, kMaxPathPolys);
}

}  // namespace batchsim::nav
