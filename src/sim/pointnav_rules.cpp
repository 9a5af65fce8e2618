#include "sim/pointnav_rules.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace batchsim::sim {
namespace {

// habitat-sim's collision test tolerance on squared move lengths (ObjectControls.action).
constexpr float kCollisionEps = 1e-5f;

float radians(float degrees) {
    return degrees * (std::numbers::pi_v<float> / 180.0f);
}

// SPL's efficiency term: optimal / max(optimal, travelled); 1 when both are zero.
float path_efficiency(float start_distance, float path_length) {
    const float longest = std::max(start_distance, path_length);
    return longest > 0 ? start_distance / longest : 1.0f;
}

// `value` plus Gaussian noise of std dev `noise`, kept in [0, 2 value] (no backward steps or
// reversed turns); exactly `value`, drawing nothing, when noise is off.
float noisy(float value, float noise, Rng& rng) {
    if (noise <= 0) return value;
    return std::clamp(value + noise * rng.normal(), 0.0f, 2.0f * value);
}

// SoftSPL's progress term: how much of the start distance has been covered.
float soft_progress(float start_distance, float distance) {
    if (start_distance > 0) return std::max(0.0f, 1.0f - distance / start_distance);
    return distance == 0 ? 1.0f : 0.0f;
}

}  // namespace

bool apply_action(EnvState& s, std::size_t i, Action action, const TaskConfig& task,
                  nav::NavQuery& query) {
    switch (action) {
        case Action::Stop: return false;
        case Action::TurnLeft:
        case Action::TurnRight: {
            const float sign = action == Action::TurnLeft ? 1.0f : -1.0f;
            const float degrees = noisy(task.turn_degrees, task.turn_noise, s.noise_rng[i]);
            s.rotation[i] =
                normalized(multiply(s.rotation[i], yaw_rotation(sign * radians(degrees))));
            return false;
        }
        case Action::MoveForward: break;
    }
    const Vec3 start = s.position[i];
    const float length = noisy(task.forward_step, task.forward_noise, s.noise_rng[i]);
    const Vec3 step = rotate(s.rotation[i], {0.0f, 0.0f, -length});
    const Vec3 target{start[0] + step[0], start[1] + step[1], start[2] + step[2]};
    const Vec3 reached = query.try_step(start, target, task.allow_sliding, s.corridor[i]);
    s.position[i] = reached;
    s.path_length[i] += distance(reached, start);
    return squared_length(reached, start) + kCollisionEps < squared_length(target, start);
}

float goal_distance(EnvState& s, std::size_t i, const DistanceContext& context) {
    const bool exact = context.mode == GeodesicMode::Exact;
    const float geodesic = context.query.geodesic_distance(s.position[i], s.corridor[i], exact);
    if (std::isfinite(geodesic)) return geodesic;
    context.unreachable += 1;
    return distance(s.position[i], s.goal[i]);
}

bool write_metrics(const EnvState& s, std::size_t i, float distance, bool stop_called,
                   const TaskConfig& task, StepOutputs& out) {
    const bool success = stop_called && distance < task.success_distance;
    const float efficiency = path_efficiency(s.start_distance[i], s.path_length[i]);
    out.success[i] = success ? 1.0f : 0.0f;
    out.spl[i] = success ? efficiency : 0.0f;
    out.softspl[i] = soft_progress(s.start_distance[i], distance) * efficiency;
    out.distance_to_goal[i] = distance;
    out.collisions[i] = s.collisions[i];
    out.geodesic_at_start[i] = s.start_distance[i];
    out.episode_step[i] = s.steps[i];
    return success;
}

void observe(const EnvState& s, std::size_t i, StepOutputs& out) {
    const Vec3& p = s.position[i];
    const Quat& q = s.rotation[i];
    const Vec3& g = s.goal[i];
    const Vec3 local = rotate(conjugate(q), {g[0] - p[0], g[1] - p[1], g[2] - p[2]});
    // Habitat: (rho, phi) = polar(-z, x) in the agent frame, reported as (rho, -phi).
    out.pointgoal[i] = {std::hypot(local[0], local[2]), -std::atan2(local[0], -local[2])};
    const Vec3 eye = rotate(q, {0.0f, s.camera_height[i], 0.0f});
    gpu::CameraPose& camera = out.camera[i];
    camera.x = p[0] + eye[0], camera.y = p[1] + eye[1], camera.z = p[2] + eye[2];
    camera.resident_scene = static_cast<std::uint32_t>(s.resident[i]);
    camera.qx = q[0], camera.qy = q[1], camera.qz = q[2], camera.qw = q[3];
}

void begin_episode(EnvState& s, std::size_t i, const EpisodeSet& episodes, std::int64_t episode,
                   const TaskConfig& task, const DistanceContext& context, bool report,
                   StepOutputs& out) {
    const auto e = static_cast<std::size_t>(episode);
    s.episode[i] = episode;
    s.position[i] = episodes.start_position[e];
    s.rotation[i] = episodes.start_rotation[e];
    s.goal[i] = episodes.goal[e];
    s.path_length[i] = 0;
    s.steps[i] = 0;
    s.collisions[i] = 0;
    const float jitter = task.camera_height_jitter;
    s.camera_height[i] = task.camera_height +
                         (jitter > 0 ? jitter * (2.0f * s.noise_rng[i].uniform() - 1.0f) : 0.0f);
    context.query.set_goal(s.corridor[i], s.goal[i]);
    const float d = goal_distance(s, i, context);
    s.start_distance[i] = d;
    s.previous_distance[i] = d;
    if (report) {
        write_metrics(s, i, d, false, task, out);
        out.reward[i] = 0;
        out.terminated[i] = 0;
        out.truncated[i] = 0;
    }
    observe(s, i, out);
}

}  // namespace batchsim::sim
