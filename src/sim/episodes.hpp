// The episodes a simulation draws from, as structs of arrays (index = episode), and the
// scenes they live on (index = scene). Python parses the Habitat json.gz files and hands
// the columns over; ids and other text stay in Python.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <span>
#include <vector>

#include "sim/pose.hpp"

namespace batchsim::sim {

struct EpisodeSet {
    std::vector<std::int32_t> scene;  // index into scene_paths
    std::vector<Vec3> start_position;
    std::vector<Quat> start_rotation;  // normalised by validate()
    std::vector<Vec3> goal;
    std::vector<std::filesystem::path> scene_paths;  // .bsscene or .navmesh files
    // Start-to-goal geodesic metres (the dataset's info.geodesic_distance), NaN where the
    // dataset does not give it; may be empty (none given). Only a limit on it needs it.
    std::vector<float> geodesic;
    // Filled by validate(): each scene's episodes in dataset order; how many geodesics are
    // missing. By sort_by_geodesic(), on a limit's first use: each scene's episodes by
    // geodesic, ties in dataset order (memory and time that runs without a limit never pay).
    std::vector<std::vector<std::int64_t>> episodes_of_scene;
    std::size_t geodesic_missing = 0;
    std::vector<std::vector<std::int64_t>> episodes_by_geodesic;

    [[nodiscard]] std::size_t size() const { return scene.size(); }
    [[nodiscard]] int scene_count() const { return static_cast<int>(scene_paths.size()); }
};

// Checks the columns (equal lengths, at least one episode, finite coordinates, nonzero
// rotations turning about the vertical axis only, geodesics NaN or >= 0, scene indices in range,
// every scene used by an episode, every scene file present) and fills the per-scene lists. Throws
// Error(InvalidArgument) naming the first bad episode, or Error(FileNotFound) listing missing scene
// files.
void validate(EpisodeSet& episodes);

// A limit on the geodesic distance of the episodes training draws; inf: none.
inline constexpr float kNoGeodesicLimit = std::numeric_limits<float>::infinity();

// Throws Error(InvalidArgument) unless max_geodesic is inf, or >= 0 with every episode's
// geodesic given (validated `episodes`).
void check_geodesic_limit(const EpisodeSet& episodes, float max_geodesic);

// Fills episodes_by_geodesic, once, for validated episodes without a missing geodesic.
void sort_by_geodesic(EpisodeSet& episodes);

// The episodes of `scene` that training draws from under a checked limit (a finite one
// needs sort_by_geodesic() first): those whose
// geodesic is at most max_geodesic, by geodesic; where none is, the scene's shortest (every
// episode tied at its least geodesic). Where every episode qualifies (inf included), the
// scene's episodes in dataset order, so that the draws are exactly those of no limit.
std::span<const std::int64_t> eligible_episodes(const EpisodeSet& episodes, int scene,
                                                float max_geodesic);

}  // namespace batchsim::sim
