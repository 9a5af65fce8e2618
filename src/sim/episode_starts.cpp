#include "sim/episode_starts.hpp"

#include <cmath>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::sim {

std::string rotation_problem(const Quat& q) {
    if (std::fabs(q[0]) <= kYawOnlyTolerance && std::fabs(q[2]) <= kYawOnlyTolerance) return "";
    return str("start_rotation (", q[0], ", ", q[1], ", ", q[2], ", ", q[3],
               ") is not a turn about the vertical axis (x and z must be 0): the agent would "
               "be tilted, and moving forward would not move it along the floor");
}

std::string start_problem(nav::NavQuery& query, const Vec3& p, const Quat& rotation) {
    if (std::string problem = rotation_problem(rotation); !problem.empty()) return problem;
    const std::string where = str("start_position (", p[0], ", ", p[1], ", ", p[2], ")");
    const std::optional<Vec3> snapped = query.snap_point(p);
    if (!snapped)
        return str(where,
                   " is off the navmesh: no navigable point within 2 m across and 4 m "
                   "up or down");
    const float dy = p[1] - (*snapped)[1];
    if (std::fabs(dy) > kStartMaxHeightOff)
        return str(where, " is ", std::fabs(dy), " m ", dy > 0 ? "above" : "below",
                   " the navmesh (at most ", kStartMaxHeightOff, ")");
    const float side = std::hypot(p[0] - (*snapped)[0], p[2] - (*snapped)[2]);
    const float radius = query.mesh().settings().agent_radius;
    if (side > radius)
        return str(where, " is ", side,
                   " m to the side of the navmesh, more than its agent "
                   "radius (",
                   radius, " m): inside a wall or off the edge of the floor");
    return "";
}

void check_scene_starts(const EpisodeSet& episodes, int scene, nav::NavQuery& query) {
    for (const std::int64_t e : episodes.episodes_of_scene.at(static_cast<std::size_t>(scene))) {
        const auto i = static_cast<std::size_t>(e);
        const std::string problem =
            start_problem(query, episodes.start_position[i], episodes.start_rotation[i]);
        BATCHSIM_CHECK(
            problem.empty(), InvalidArgument,
            str("episode ", e, " (dataset order) on scene '",
                episodes.scene_paths[static_cast<std::size_t>(scene)].string(), "': ", problem,
                "; the simulator cannot run it as the dataset "
                "means it (fix or drop the episode)"));
    }
}

}  // namespace batchsim::sim
