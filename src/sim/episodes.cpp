#include "sim/episodes.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "nav/habitat_format.hpp"
#include "sim/episode_starts.hpp"

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
    BATCHSIM_CHECK(
        e.geodesic.empty() || e.geodesic.size() == n, InvalidArgument,
        str("geodesic: expected none or one per episode (", n, "), got ", e.geodesic.size()));
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
    if (!e.geodesic.empty()) {
        const float geodesic = e.geodesic[i];
        BATCHSIM_CHECK(std::isnan(geodesic) || geodesic >= 0, InvalidArgument,
                       str("episode ", i, " has geodesic ", geodesic,
                           "; expected metres >= 0, or NaN where unknown"));
    }
}

// The episodes of a geodesic-sorted list within `limit` metres: a prefix.
std::size_t count_within(const EpisodeSet& e, const std::vector<std::int64_t>& sorted,
                         float limit) {
    const auto end = std::upper_bound(
        sorted.begin(), sorted.end(), limit,
        [&](float l, std::int64_t i) { return l < e.geodesic[static_cast<std::size_t>(i)]; });
    return static_cast<std::size_t>(end - sorted.begin());
}

void check_scene_files(const EpisodeSet& e) {
    std::vector<std::string> missing;
    for (const auto& path : e.scene_paths) {
        std::error_code error;
        if (!std::filesystem::is_regular_file(path, error)) missing.push_back(path.string());
    }
    BATCHSIM_CHECK(
        missing.empty(), FileNotFound,
        str(missing.size(), " scene file(s) not found (or not regular files): ", join(missing)));
}

}  // namespace

void validate(EpisodeSet& e) {
    check_columns(e);
    e.episodes_of_scene.assign(e.scene_paths.size(), {});
    for (std::size_t i = 0; i < e.size(); ++i) {
        check_episode(e, i);
        e.start_rotation[i] = normalized(e.start_rotation[i]);
        const std::string turn = rotation_problem(e.start_rotation[i]);  // episode_starts.hpp
        BATCHSIM_CHECK(turn.empty(), InvalidArgument,
                       str("episode ", i, " (dataset order): ", turn));
        e.episodes_of_scene[static_cast<std::size_t>(e.scene[i])].push_back(
            static_cast<std::int64_t>(i));
    }
    for (std::size_t s = 0; s < e.episodes_of_scene.size(); ++s)
        BATCHSIM_CHECK(!e.episodes_of_scene[s].empty(), InvalidArgument,
                       str("scene ", s, " (", e.scene_paths[s].string(), ") has no episodes"));
    e.geodesic_missing = e.geodesic.empty()
                             ? e.size()
                             : static_cast<std::size_t>(std::count_if(
                                   e.geodesic.begin(), e.geodesic.end(),
                                   [](float geodesic) { return std::isnan(geodesic); }));
    e.episodes_by_geodesic.clear();
    check_scene_files(e);
}

void check_geodesic_limit(const EpisodeSet& e, float max_geodesic) {
    BATCHSIM_CHECK(
        max_geodesic >= 0, InvalidArgument,
        str("max_episode_geodesic: expected metres >= 0 (inf: no limit), got ", max_geodesic));
    if (std::isinf(max_geodesic)) return;
    BATCHSIM_CHECK(e.geodesic_missing == 0, InvalidArgument,
                   str("max_episode_geodesic: a limit needs every episode's geodesic distance "
                       "(the dataset's info.geodesic_distance), but ",
                       e.geodesic_missing, " of ", e.size(), " episodes lack it"));
}

// A stable sort keeps ties in dataset order; a limit then selects a prefix.
void sort_by_geodesic(EpisodeSet& e) {
    assert(e.geodesic_missing == 0);
    if (!e.episodes_by_geodesic.empty()) return;
    e.episodes_by_geodesic = e.episodes_of_scene;
    for (auto& list : e.episodes_by_geodesic)
        std::stable_sort(list.begin(), list.end(), [&](std::int64_t a, std::int64_t b) {
            return e.geodesic[static_cast<std::size_t>(a)] <
                   e.geodesic[static_cast<std::size_t>(b)];
        });
}

std::span<const std::int64_t> eligible_episodes(const EpisodeSet& e, int scene,
                                                float max_geodesic) {
    const auto& in_order = e.episodes_of_scene[static_cast<std::size_t>(scene)];
    if (std::isinf(max_geodesic)) return in_order;
    assert(max_geodesic >= 0 && !e.episodes_by_geodesic.empty());  // checked, sorted
    const auto& sorted = e.episodes_by_geodesic[static_cast<std::size_t>(scene)];
    std::size_t count = count_within(e, sorted, max_geodesic);
    if (count == sorted.size()) return in_order;
    if (count == 0) count = count_within(e, sorted, e.geodesic[std::size_t(sorted.front())]);
    return {sorted.data(), count};
}

}  // namespace batchsim::sim
