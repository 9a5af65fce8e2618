// Packed scene files: the writer (the format and the reader are in packed_scene.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "assets/scene_data.hpp"

namespace batchsim::assets {

struct PackOptions {
    // Store sections deflated (format version 5) where that makes the file smaller: about a
    // fifth of the bytes for a procedural building, for about 0.05 s more per load. Off, the
    // file is version 4, byte for byte what builds before version 5 wrote and read.
    bool deflate = false;
};

// Writes `scene` to `path` atomically (a temporary file renamed over the target). Throws
// Error(InvalidArgument) if the scene would not load back (see packed_scene.hpp), and
// Error(Io) if writing fails; the target is then untouched.
void write_packed_scene(const std::filesystem::path& path, const SceneData& scene,
                        const PackOptions& options = {});

// The bytes write_packed_scene writes, in memory (tests and fuzz seeds).
std::vector<std::uint8_t> pack_scene(const SceneData& scene, const PackOptions& options = {});

}  // namespace batchsim::assets
