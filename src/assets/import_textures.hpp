// The textures an Assimp scene's materials name, decoded once each: embedded ones (a GLB's
// buffer views, "*N") and files beside the model.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include "assets/scene_data.hpp"

struct aiScene;
struct aiTexture;

namespace batchsim::assets {

class TextureLoader {
public:
    // Appends the textures it loads to `out`; `model` is the file they belong to. With
    // `missing_is_error` (glTF: its URIs are relative to the file by the spec, so a missing one
    // means an incomplete copy) a missing external file throws; otherwise (OBJ, FBX, ... often
    // name files by the author's absolute paths) it is reported on stderr and left out.
    TextureLoader(const aiScene& scene, std::filesystem::path model, bool missing_is_error,
                  std::vector<TextureData>& out);

    // Index in `out` of the texture `reference` (a material's texture path) names, decoded on
    // first use; gpu::kNoTexture for a tolerated missing file. Throws, naming the model and the
    // texture: Error(FileNotFound) if an external file is missing (see above),
    // Error(CorruptData) if it cannot be decoded, Error(Unsupported) for KTX / KTX2 images.
    std::uint32_t index_of(const std::string& reference);

private:
    std::uint32_t load(const std::string& name, const aiTexture* embedded);

    const aiScene& scene_;
    std::filesystem::path model_;
    bool missing_is_error_;
    std::vector<TextureData>& out_;
    std::unordered_map<std::string, std::uint32_t> loaded_;  // by normalised name
};

}  // namespace batchsim::assets
