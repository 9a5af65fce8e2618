// When does Detour's findPath from a new start point repeat (the rest of) a search it just
// did? Internal to src/nav: reads the search tree findPath leaves in the query's node pool.
//
// Why not simply reuse the old corridor's remainder: findPath's A* costs are distances
// between edge midpoints, so moving the start by 25 cm can make it pick another corridor,
// and the string-pulled lengths of the two differ by metres. Measured on random walks
// through mazes, rooms with pillars and procgen apartments: reusing the remainder was off by
// more than 1 cm on 0.05-8% of the steps, by up to 4.7 m; searching afresh whenever the start
// left the corridor's first polygon, the first corner changed, or every second step still
// left errors of 1-3 m. So a reuse must prove that a fresh search returns the same polygons.
//
// A search from s on polygon P pops P, gives each neighbour of P (the "ring") the cost
// |s - edge midpoint|, and from then on adds costs that do not depend on s. Group the nodes
// by the ring node they hang from (their root); a new start re-offsets each root's costs.
// From s' on P the search repeats if
//   (a) no expanded node of one root touched a node of another root (touching a ring node
//       or P is harmless: with unit area costs the direct edge from s is the cheapest way to
//       a ring node), and
//   (b) every root but the goal's keeps its cheapest unexpanded node's total above the goal's
//       new cost (a margin covers float rounding),
// for then the goal's root pops the same nodes in the same order, the others expand at most
// what they expanded before and touch nothing of the goal's root, and the goal is reached
// the same way. Where (a) fails (in open rooms, most searches), every root's costs still
// move together, by delta = |s' - exit| - |s - exit|, while each node that two roots touched
// keeps the position its first toucher gave it and the cost its parent gave it: while that
// toucher still pops first and the parent still offers the cheapest way in. Each of those is
// a lower bound on delta(x) - delta(y) for two roots (GoalCorridor::links, exit_links.hpp),
// checked at s' beside (b).
// From s' on a later corridor polygon Q = polys[j], the search repeats the
// corridor's remainder if the subtree below polys[j + 1] neither touched nor was touched by
// anything outside it but Q and Q's neighbours, and none of Q's other neighbours can be
// expanded before the goal (their total from s' exceeds the goal's new cost).
// Up to float rounding of exact cost ties the polygons are then the same, so string-pulling
// them gives exact mode's answer bit for bit.
#pragma once

#include <span>

#include <DetourNavMeshQuery.h>

#include "nav/goal_corridor.hpp"

namespace batchsim::nav {

// certify_search's scratch: four ints per node of the query's pool, plus four.
inline constexpr int certify_scratch_size(int node_pool_size) {
    return 4 * (node_pool_size + 1);
}

// After `query` filled corridor.polys (findPath from its snapped start returned DT_SUCCESS
// and nothing has used the query since): records which start polygons a later search may
// reuse the corridor from, and what it must check there.
void certify_search(const dtNavMeshQuery& query, const dtQueryFilter& filter,
                    GoalCorridor& corridor, std::span<int> scratch);

// The index j such that findPath from `start` (snapped onto `start_ref`) would return
// corridor.polys[j..], or -1 when that cannot be shown.
int repeated_suffix(const GoalCorridor& corridor, const dtNavMesh& mesh,
                    const dtQueryFilter& filter, dtPolyRef start_ref, const Vec3& start);

}  // namespace batchsim::nav
