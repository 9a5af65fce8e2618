// findNearestPoly's choice among polygons a caller already queried, with most of its
// closest-point tests skipped. Internal to src/nav.
//
// findNearestPoly scores a polygon the point is over by max(|dy| - climb, 0)^2 and any other
// by the squared distance to its closest point, and keeps the first best in query order. The
// closest point lies in the box round the polygon's vertices and detail vertices, so
// max(box distance - climb, 0)^2 never exceeds a polygon's score: a polygon whose bound is
// above a score already reached cannot be the first best, and is skipped.
#pragma once

#include <DetourNavMeshQuery.h>

namespace batchsim::nav {

// The polygon findNearestPoly(point) would answer if its box held exactly `candidates`, in
// that order (0 if none; at most 512 of them); bit-identical to Detour's choice.
dtPolyRef nearest_polygon(const dtNavMeshQuery& query, const float* point,
                          const dtPolyRef* candidates, int count);

}  // namespace batchsim::nav
