#include "sim/config.hpp"

#include <cmath>

#include <array>

#include "core/check.hpp"
#include "core/choice.hpp"
#include "core/strings.hpp"

namespace batchsim::sim {
namespace {

void require(bool ok, const char* field, const char* expected, auto given) {
    BATCHSIM_CHECK(ok, InvalidArgument, str(field, " must be ", expected, ", got ", given));
}

bool finite_in(float value, float lo, float hi) {
    return std::isfinite(value) && value >= lo && value <= hi;
}

constexpr std::array<Choice<EpisodeOrder>, 2> kOrders{
    {{"train", EpisodeOrder::Train}, {"eval", EpisodeOrder::Eval}}};
constexpr std::array<Choice<GeodesicMode>, 2> kGeodesicModes{
    {{"corridor", GeodesicMode::Corridor}, {"exact", GeodesicMode::Exact}}};
constexpr std::array<Choice<AutoReset>, 3> kAutoResets{{{"same_step", AutoReset::SameStep},
                                                        {"next_step", AutoReset::NextStep},
                                                        {"disabled", AutoReset::Disabled}}};

}  // namespace

EpisodeOrder parse_episode_order(std::string_view name) {
    return parse_choice<EpisodeOrder>(name, "mode", kOrders);
}
GeodesicMode parse_geodesic_mode(std::string_view name) {
    return parse_choice<GeodesicMode>(name, "geodesic", kGeodesicModes);
}
AutoReset parse_autoreset(std::string_view name) {
    return parse_choice<AutoReset>(name, "autoreset", kAutoResets);
}
const char* name_of(EpisodeOrder order) {
    return choice_name<EpisodeOrder>(order, kOrders);
}
const char* name_of(GeodesicMode mode) {
    return choice_name<GeodesicMode>(mode, kGeodesicModes);
}
const char* name_of(AutoReset mode) {
    return choice_name<AutoReset>(mode, kAutoResets);
}

void validate(const TaskConfig& t) {
    require(finite_in(t.forward_step, 1e-4f, 100.0f) && t.forward_step > 0,
            "TaskConfig.forward_step", "in (0, 100] metres", t.forward_step);
    require(finite_in(t.turn_degrees, 0.0f, 180.0f) && t.turn_degrees > 0,
            "TaskConfig.turn_degrees", "in (0, 180]", t.turn_degrees);
    require(finite_in(t.success_distance, 0.0f, 1e6f), "TaskConfig.success_distance",
            "a finite distance >= 0", t.success_distance);
    require(std::isfinite(t.slack_reward), "TaskConfig.slack_reward", "finite", t.slack_reward);
    require(std::isfinite(t.success_reward), "TaskConfig.success_reward", "finite",
            t.success_reward);
    require(t.max_episode_steps >= 1, "TaskConfig.max_episode_steps", ">= 1", t.max_episode_steps);
    require(finite_in(t.camera_height, -100.0f, 100.0f), "TaskConfig.camera_height",
            "finite, within 100 m", t.camera_height);
    require(finite_in(t.forward_noise, 0.0f, t.forward_step), "TaskConfig.forward_noise",
            "in [0, forward_step] metres", t.forward_noise);
    require(finite_in(t.turn_noise, 0.0f, 90.0f), "TaskConfig.turn_noise", "in [0, 90] degrees",
            t.turn_noise);
    require(finite_in(t.camera_height_jitter, 0.0f, 10.0f), "TaskConfig.camera_height_jitter",
            "in [0, 10] metres", t.camera_height_jitter);
}

void validate(const SimConfig& c) {
    require(c.num_envs >= 1, "num_envs", ">= 1", c.num_envs);
    require(c.num_threads >= 1 && c.num_threads <= 1024, "num_threads", "in [1, 1024]",
            c.num_threads);
    require(c.scenes_resident >= 1, "scenes_resident", ">= 1", c.scenes_resident);
    // + 1: with NextStep autoreset an episode holds its scene one step longer.
    require(c.steps_per_scene > c.task.max_episode_steps + 1, "steps_per_scene",
            str("greater than max_episode_steps + 1 (", c.task.max_episode_steps + 1, ")").c_str(),
            c.steps_per_scene);
    require(std::isfinite(c.loader_bytes_per_second) && c.loader_bytes_per_second >= 0,
            "loader_bytes_per_second", ">= 0 (0 = unlimited)", c.loader_bytes_per_second);
    validate(c.task);
}

}  // namespace batchsim::sim
