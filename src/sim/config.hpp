// What a batch simulation runs: Habitat's PointNav-v1 task constants and the batch's setup.
// The defaults are habitat-lab's PointNav configuration.
#pragma once

#include <cstdint>
#include <string_view>

namespace batchsim::sim {

enum class Action : std::int32_t { Stop = 0, MoveForward = 1, TurnLeft = 2, TurnRight = 3 };
inline constexpr int kActionCount = 4;

struct TaskConfig {
    float forward_step = 0.25f;     // metres per MOVE_FORWARD
    float turn_degrees = 10.0f;     // degrees per TURN_LEFT / TURN_RIGHT
    float success_distance = 0.2f;  // STOP closer than this (geodesic, metres) succeeds
    float slack_reward = -0.01f;    // every step: favours short episodes
    float success_reward = 2.5f;    // added to the step that succeeds
    int max_episode_steps = 500;    // a longer episode is truncated
    float camera_height = 1.25f;    // camera above the agent's navmesh position (metres)
    bool allow_sliding = true;      // slide along walls (habitat-sim's default) or stop
    // Randomisation for training, all off at 0 (Habitat's noiseless agent). Each draw comes
    // from the environment's own noise stream, seeded by (seed, environment index), so it
    // leaves the episode sequence alone.
    float forward_noise = 0.0f;         // std dev (m) of Gaussian noise on a forward step
    float turn_noise = 0.0f;            // std dev (degrees) of Gaussian noise on a turn
    float camera_height_jitter = 0.0f;  // per episode: camera_height +- this, uniform (m)
};

// Training samples episodes of the resident scenes with replacement; evaluation runs every
// episode of the dataset exactly once.
enum class EpisodeOrder { Train, Eval };

// Exact: a fresh Detour path search per measurement (habitat-sim's value). Corridor: reuses
// each agent's path corridor while it stays on it (within 1 cm of exact, much cheaper).
enum class GeodesicMode { Corridor, Exact };

// When an environment whose episode ended starts its next one (gymnasium's modes):
// SameStep: within the step that ended it (the step reports the ended episode's reward,
//   flags and metrics with the new episode's observation);
// NextStep: at its next step, which ignores its action and reports the first observation;
// Disabled: only when reset_envs() names it; its steps until then change nothing.
enum class AutoReset { SameStep, NextStep, Disabled };

struct SimConfig {
    int num_envs = 1;
    int num_threads = 1;     // workers stepping environments, the calling thread included
    std::uint64_t seed = 0;  // environment i's randomness depends only on (seed, i)
    EpisodeOrder order = EpisodeOrder::Train;
    // K scenes resident, environment i in slot i mod K; at most the number of scenes and
    // of environments.
    int scenes_resident = 1;
    // Training: each slot moves on to its next scene every this many steps; environments
    // follow at their next episode end. Longer than an episode, so a slot needs at most two
    // resident scenes (the one being left and the next).
    int steps_per_scene = 2000;
    GeodesicMode geodesic = GeodesicMode::Corridor;
    AutoReset autoreset = AutoReset::SameStep;
    // Read-rate cap of background scene loads, so they never starve the step of memory
    // bandwidth; lifted while a step waits for a scene. 0 = unlimited.
    double loader_bytes_per_second = 512.0 * 1024 * 1024;
    TaskConfig task;
};

// The names Python uses for the enumerations ("train", "corridor", "same_step", ...), both
// ways; parse_* throw Error(InvalidArgument) listing the choices.
EpisodeOrder parse_episode_order(std::string_view name);
GeodesicMode parse_geodesic_mode(std::string_view name);
AutoReset parse_autoreset(std::string_view name);
const char* name_of(EpisodeOrder order);
const char* name_of(GeodesicMode mode);
const char* name_of(AutoReset mode);

// Throw Error(InvalidArgument) naming the field, what it must be and what it is.
void validate(const TaskConfig& task);
void validate(const SimConfig& config);

}  // namespace batchsim::sim
