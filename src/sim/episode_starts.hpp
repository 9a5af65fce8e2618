// The rules an episode's start must meet for the simulator to run the episode as the dataset
// means it. The loader took starts it could not honour (issue 40): a 90-degree roll (forward
// then never moves), a start 500 m from the navmesh (stuck for ever), 5 cm inside a wall
// (the agent then walked through it) or 2.5 m up. One owner for the rules: the simulator
// checks each scene's episodes when it first loads the scene (SceneSlots), validate() checks
// rotations up front, and `batchsim check-dataset` runs the same function (NavMesh binding).
#pragma once

#include <cstdint>
#include <string>

#include "nav/nav_query.hpp"
#include "sim/episodes.hpp"
#include "sim/pose.hpp"

namespace batchsim::sim {

// A start may be this far above or below the navmesh under it (habitat-sim's is_navigable).
inline constexpr float kStartMaxHeightOff = 0.5f;
// A unit start rotation's x and z may be this far from 0: a turn about the vertical axis.
inline constexpr float kYawOnlyTolerance = 1e-4f;

// Why a start facing `rotation` (a unit quaternion) breaks the rules, or "".
std::string rotation_problem(const Quat& rotation);

// Why a start at `position` facing `rotation` breaks the rules on `query`'s navmesh, or "":
// the rotation (above); no navmesh point within Habitat's snap box; one, but more than
// kStartMaxHeightOff above or below; or one farther to the side than the navmesh's agent
// radius (the agent's centre would be inside a wall, or off the edge of the floor).
std::string start_problem(nav::NavQuery& query, const Vec3& position, const Quat& rotation);

// Throws Error(InvalidArgument) naming the first episode of `scene` (dataset order), the
// scene file and the rule it breaks, if any episode's start breaks one.
void check_scene_starts(const EpisodeSet& episodes, int scene, nav::NavQuery& query);

}  // namespace batchsim::sim
