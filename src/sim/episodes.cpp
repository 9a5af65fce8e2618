#include "sim/episodes.hpp"

#include <cmath>
#include <string>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "nav/habitat_format.hpp"

namespace batchsim::sim {
namespace {

// Finite and within the range a navmesh can hold: a point farther out is off every navmesh,
// and its straight-line distance to the goal (the fallback for an unreachable goal) would
// overflow float to inf, and SPL and SoftSPL to NaN (found by fuzz/fuzz_episodes.cpp).
bool in_nav_range(const Vec3& v) {
    return std::fabs(v[0]) <= nav::kMaxNavCoordinate && std::fabs(v[1]) <= nav::kMaxNavCoordinate &&
           std::fabs(v[2]) <= nav::kMaxNavCoordinate;
}

void check_columns(const EpisodeSet& e) {
    const std::size_t n = e.scene.size();
    BATCHSIM_CHECK(n > 0, InvalidArgument, "the dataset has no episodes");
    BATCHSIM_CHECK(
        e.start_position.size() == n && e.start_rotation.size() == n && e.goal.size() == n,
        InvalidArgument,
        str("episode columns must have one row per episode (", n, "), got start_position ",
            e.start_position.size(), ", start_rotation ", e.start_rotation.size(), ", goal ",
            e.goal.size()));
}

void check_episode(const EpisodeSet& e, std::size_t i) {
    const std::int32_t scene = e.scene[i];
    BATCHSIM_CHECK(
        scene >= 0 && scene < e.scene_count(), InvalidArgument,
        str("episode ", i, " is on scene ", scene, ", but there are ", e.scene_count(), " scenes"));
    BATCHSIM_CHECK(in_nav_range(e.start_position[i]) && in_nav_range(e.goal[i]), InvalidArgument,
                   str("episode ", i, " has a non-finite start_position or goal, or one beyond ",
                       nav::kMaxNavCoordinate, " m (where no navmesh reaches)"));
    const Quat& q = e.start_rotation[i];
    const float norm2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    BATCHSIM_CHECK(std::isfinite(norm2) && norm2 > 1e-6f, InvalidArgument,
                   str("episode ", i, " has start_rotation (", q[0], ", ", q[1], ", ", q[2], ", ",
                       q[3], "); expected a unit quaternion (x, y, z, w)"));
}

void check_scene_files(const EpisodeSet& e) {
    std::vector<std::string> missing;
    for (const auto& path : e.scene_paths) {
        std::error_code error;
        if (!std::filesystem::is_regular_file(path, error)) missing.push_back(path.string());
    }
    BATCHSIM_CHECK(missing.empty(), FileNotFound,
                   str(missing.size(), " scene file(s) not found: ", join(missing)));
}

}  // namespace

void validate(EpisodeSet& e) {
    check_columns(e);
    e.episodes_of_scene.assign(e.scene_paths.size(), {});
    for (std::size_t i = 0; i < e.size(); ++i) {
        check_episode(e, i);
        e.start_rotation[i] = normalized(e.start_rotation[i]);
        e.episodes_of_scene[static_cast<std::size_t>(e.scene[i])].push_back(
            static_cast<std::int64_t>(i));
    }
    for (std::size_t s = 0; s < e.episodes_of_scene.size(); ++s)
        BATCHSIM_CHECK(!e.episodes_of_scene[s].empty(), InvalidArgument,
                       str("scene ", s, " (", e.scene_paths[s].string(), ") has no episodes"));
    check_scene_files(e);
}

}  // namespace batchsim::sim
