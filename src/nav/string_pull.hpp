// The length of Detour's string pull (findStraightPath) along the rest of a goal corridor,
// cheaper when the agent asks again from a nearby start. Internal to src/nav.
//
// Why: an agent that stays on its corridor string-pulls all of it every step, though only
// the way to its first corner moves with it. findStraightPath's funnel restarts at every
// corner from that corner and its portal index alone: from there on it depends on nothing
// before. So the funnel here is Detour's, float for float (its inline helpers and exported
// functions, its portal points), run until it appends its first corner after the start; if
// the last full pull appended the same point as the apex of the same portal (and nothing
// merged into it later), the rest is that pull's rest, and the length is summed over the same
// float distances in the same order: the same float. Otherwise it pulls on to the end and
// remembers this pull's corners instead.
#pragma once

#include <DetourNavMeshQuery.h>

#include "nav/goal_corridor.hpp"

namespace batchsim::nav {

// findStraightPath(start, end, corridor.polys + first, corridor.poly_count - first) with no
// options and room for `max_corners` corners: the sum in double of the float distances
// between its corners, as a float; +inf where it does not return DT_SUCCESS. Reads and
// updates corridor.pulled (clear it whenever polys change).
float pulled_length(const dtNavMeshQuery& query, const Vec3& start, const Vec3& end,
                    GoalCorridor& corridor, int first, int max_corners);

}  // namespace batchsim::nav
