// The per-environment outputs, declared once (issue 42, item 1). Every array the simulator
// exposes per environment is one row of output_table(): its name, element type and columns,
// whether the Simulator stages it to the device (results()), where the gymnasium env shows it
// and a one-line doc. From the table come StepOutputs' members (the X-macro below), the
// Simulator's staged results (src/env/simulator.cpp), the numpy views (src/bindings/
// sim_views.cpp), and through _core.output_table() the Python SimOutputs, the env's
// observation space and info keys, and the docs' tables (scripts/output_table.py).
//
// Adding an output of the step: one BATCHSIM_STEP_OUTPUTS row here, and the code that writes
// it (src/sim/pointnav_rules.cpp); then `python scripts/output_table.py --write`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace batchsim::sim {

class BatchSim;

// Where the gymnasium env (batchsim.env) shows an output.
enum class EnvRole : std::uint8_t {
    None,         // not shown (SimOutputs and results() only)
    Observation,  // a key of the observation dict
    Step,         // step()'s own return: reward, terminated, truncated
    InfoEnded,    // an info key, masked to the environments whose episode ended this step
    InfoAll,      // an info key for every environment
};

// The values' range where it is not the element type's own (the observation space's bounds).
enum class ValueRange : std::uint8_t {
    Any,
    Polar,  // [distance >= 0 (m), angle in [-pi, pi] (rad)]
};

enum class Element : std::uint8_t { Float32, Int32, Int64, Bool };

// The step's outputs as X(name, element type, env role, env key ("": the name), value range,
// doc). Each becomes a std::vector<type> member of StepOutputs (sim/state.hpp)
// and a row of output_table(), in this order. Every one is staged to results().
using Polar2 = std::array<float, 2>;
// NOLINTBEGIN(bugprone-macro-parentheses): the arguments are names and types
#define BATCHSIM_STEP_OUTPUTS(X)                                                          \
    X(pointgoal, Polar2, Observation, "pointgoal_with_gps_compass", Polar,                \
      "pointgoal_with_gps_compass, distance (m) and angle (rad, + to the left)")          \
    X(reward, float, Step, "", Any, "-0.01 + progress + 2.5 on success")                  \
    X(terminated, std::uint8_t, Step, "", Any, "STOP was called")                         \
    X(truncated, std::uint8_t, Step, "", Any, "the episode reached max_episode_steps")    \
    X(success, float, InfoEnded, "", Any,                                                 \
      "Habitat's measure, of the episode that just ended where terminated or truncated, " \
      "else running")                                                                     \
    X(spl, float, InfoEnded, "", Any, "as success")                                       \
    X(softspl, float, InfoEnded, "", Any, "as success")                                   \
    X(distance_to_goal, float, InfoAll, "", Any,                                          \
      "geodesic metres to the goal (straight-line where unreachable)")                    \
    X(collisions, std::int32_t, InfoAll, "", Any, "moves that hit a wall, this episode")  \
    X(geodesic_at_start, float, InfoAll, "", Any,                                         \
      "geodesic metres from the episode's start to its goal (SPL's shortest path)")       \
    X(episode_step, std::int32_t, None, "", Any, "steps taken this episode")
// NOLINTEND(bugprone-macro-parentheses)

struct OutputRow {
    std::string_view name;
    Element element = Element::Float32;
    std::int32_t columns = 1;  // the array is [N] for 1, [N, columns] otherwise
    std::size_t stride = 0;    // bytes from one environment's values to the next
    bool staged = false;       // in Simulator::results(), copied to the device every step
    EnvRole env = EnvRole::None;
    std::string_view env_key;  // the env's name for it; empty: the name
    ValueRange range = ValueRange::Any;
    std::string_view doc;
    const void* (*first)(const BatchSim&) = nullptr;  // environment 0's values

    [[nodiscard]] std::size_t row_bytes() const;  // of the values, without padding
};

// Every output, in the order of the numpy views and results(): the agent's pose and goal, the
// step's outputs, the indices and flags, the camera.
std::span<const OutputRow> output_table();

std::string_view name_of(Element element);
std::string_view name_of(EnvRole role);
std::string_view name_of(ValueRange range);

}  // namespace batchsim::sim
