// GoalCorridor::links: where the cached search's subtrees of two exits of its start polygon
// touched, and how far a new start may move before such a touch could go another way.
// Recorded by certify_search, checked by repeated_suffix (search_certificate.hpp).
#pragma once

#include "nav/goal_corridor.hpp"

namespace batchsim::nav {

// Asks of later starts s that |s - exit a| - |s - exit b| >= least (exits named by rival
// index or GoalCorridor::kWinnerSlot); false when kMaxLinks other pairs are taken.
bool add_link(GoalCorridor& corridor, int a, int b, float least);

// Whether `start` meets every link; `exit` is the midpoint of the exit into polys[1].
bool links_hold(const GoalCorridor& corridor, const Vec3& start, const Vec3& exit);

}  // namespace batchsim::nav
