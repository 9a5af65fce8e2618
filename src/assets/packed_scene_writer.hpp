// Packed scene files: the writer (the format and the reader are in packed_scene.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "assets/scene_data.hpp"

namespace batchsim::assets {

// Writes `scene` to `path` atomically (a temporary file renamed over the target). Throws
// Error(InvalidArgument) if the scene would not load back (see packed_scene.hpp), and
// Error(Io) if writing fails; the target is then untouched.
void write_packed_scene(const std::filesystem::path& path, const SceneData& scene);

// The bytes write_packed_scene writes, in memory (tests and fuzz seeds).
std::vector<std::uint8_t> pack_scene(const SceneData& scene);

}  // namespace batchsim::assets
