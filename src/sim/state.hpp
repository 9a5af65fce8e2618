// The batch's state and what each step reports, as structs of arrays (index = environment).
// Every array is sized once, at construction, and never reallocated: Python and the renderer
// hold views of them.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/random.hpp"
#include "nav/goal_corridor.hpp"
#include "shared.h"
#include "sim/outputs.hpp"
#include "sim/pose.hpp"

namespace batchsim::sim {

// Per-environment simulation state.
struct EnvState {
    std::vector<Vec3> position;               // on the navmesh, metres
    std::vector<Quat> rotation;               // unit, x y z w
    std::vector<Vec3> goal;                   // the episode's goal
    std::vector<float> start_distance;        // distance to the goal when the episode began
    std::vector<float> previous_distance;     // at the previous step (for the reward)
    std::vector<float> path_length;           // metres travelled this episode
    std::vector<std::int32_t> steps;          // actions taken this episode
    std::vector<std::int32_t> collisions;     // moves this episode that hit a wall
    std::vector<std::int64_t> episode;        // index into the EpisodeSet
    std::vector<std::int32_t> scene;          // index into EpisodeSet::scene_paths
    std::vector<std::int32_t> resident;       // resident scene (0 .. 2K-1) holding `scene`
    std::vector<std::uint8_t> needs_episode;  // ended; waits for its next episode
    std::vector<std::uint8_t> active;         // has an episode (false once evaluation runs out)
    std::vector<Rng> rng;                     // seeded by (seed, environment index)
    std::vector<Rng> noise_rng;               // TaskConfig's randomisation, its own streams
    std::vector<float> camera_height;         // this episode's (TaskConfig::camera_height_jitter)
    std::vector<nav::GoalCorridor> corridor;  // reused path to the goal (GeodesicMode)

    explicit EnvState(std::size_t n);
    [[nodiscard]] std::size_t size() const { return position.size(); }
};

// What the last reset or step reports per environment. For an environment whose episode
// ended in this step (SameStep autoreset), reward, flags and metrics are the ended
// episode's, while the observation and camera already show the next episode's start.
struct StepOutputs {
    // pointgoal, reward, flags, metrics: std::vector<type> name; per row of
    // BATCHSIM_STEP_OUTPUTS (sim/outputs.hpp), which documents each.
#define BATCHSIM_DECLARE_OUTPUT(name, type, ...) std::vector<type> name;
    BATCHSIM_STEP_OUTPUTS(BATCHSIM_DECLARE_OUTPUT)
#undef BATCHSIM_DECLARE_OUTPUT
    std::vector<gpu::CameraPose> camera;  // [N] for the renderer

    explicit StepOutputs(std::size_t n);
};

}  // namespace batchsim::sim
