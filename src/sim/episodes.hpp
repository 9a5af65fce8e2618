// The episodes a simulation draws from, as structs of arrays (index = episode), and the
// scenes they live on (index = scene). Python parses the Habitat json.gz files and hands
// the columns over; ids and other text stay in Python.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "sim/pose.hpp"

namespace batchsim::sim {

struct EpisodeSet {
    std::vector<std::int32_t> scene;  // index into scene_paths
    std::vector<Vec3> start_position;
    std::vector<Quat> start_rotation;  // normalised by validate()
    std::vector<Vec3> goal;
    std::vector<std::filesystem::path> scene_paths;  // .bsscene or .navmesh files
    // Filled by validate(): each scene's episodes in dataset order.
    std::vector<std::vector<std::int64_t>> episodes_of_scene;

    [[nodiscard]] std::size_t size() const { return scene.size(); }
    [[nodiscard]] int scene_count() const { return static_cast<int>(scene_paths.size()); }
};

// Checks the columns (equal lengths, at least one episode, finite coordinates, nonzero
// rotations, scene indices in range, every scene used by an episode, every scene file
// present) and fills episodes_of_scene. Throws Error(InvalidArgument) naming the first bad
// episode, or Error(FileNotFound) listing missing scene files.
void validate(EpisodeSet& episodes);

}  // namespace batchsim::sim
