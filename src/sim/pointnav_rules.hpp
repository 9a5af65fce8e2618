// Habitat's PointNav-v1 rules for one environment: the systems a step runs, each a plain
// function of the batch state and one environment index. Sources: habitat-sim's
// default_controls and ObjectControls (actions, collisions), habitat-lab's nav task
// measures (DistanceToGoal, Success, SPL, SoftSPL, Collisions), its
// DistanceToGoalReward + slack/success rewards, and IntegratedPointGoalGPSAndCompassSensor.
#pragma once

#include <cstddef>

#include "nav/nav_query.hpp"
#include "sim/config.hpp"
#include "sim/episodes.hpp"
#include "sim/state.hpp"

namespace batchsim::sim {

// The distance measure's inputs and where unreachable goals are counted.
struct DistanceContext {
    nav::NavQuery& query;
    GeodesicMode mode;
    std::size_t& unreachable;  // measurements that fell back to the straight-line distance
};

// MOVE_FORWARD slides along walls via try_step; TURN_* rotate about +y; STOP does nothing.
// Forward distances and turn angles carry TaskConfig's actuation noise, when it is on.
// Adds the distance moved to the path length; returns whether the move collided (habitat-sim:
// the navmesh shortened it by more than 1e-5 in squared length).
bool apply_action(EnvState& s, std::size_t i, Action action, const TaskConfig& task,
                  nav::NavQuery& query);

// Geodesic distance from the agent to its goal; the straight-line distance where the goal
// is unreachable (Habitat would report inf and NaN rewards), so no metric is ever inf/NaN.
float goal_distance(EnvState& s, std::size_t i, const DistanceContext& context);

// Success, SPL, SoftSPL and distance_to_goal at `distance`, written to the outputs; returns
// whether the episode succeeded.
bool write_metrics(const EnvState& s, std::size_t i, float distance, bool stop_called,
                   const TaskConfig& task, StepOutputs& out);

// pointgoal_with_gps_compass (distance, angle; positive angles to the left) and the camera,
// at the episode's camera height.
void observe(const EnvState& s, std::size_t i, StepOutputs& out);

// Puts environment i at the start of `episode` (position as given, not snapped), draws its
// camera height (TaskConfig::camera_height_jitter), measures
// the start distance and writes the first observation. With `report`, also the first step's
// zero reward, flags and metrics; without, they keep reporting the episode that just ended.
void begin_episode(EnvState& s, std::size_t i, const EpisodeSet& episodes, std::int64_t episode,
                   const TaskConfig& task, const DistanceContext& context, bool report,
                   StepOutputs& out);

}  // namespace batchsim::sim
