// Materials of an Assimp scene in batchsim's form: the base colour factor and texture, and
// how that texture reads a mesh's texture coordinates (which set, and the glTF
// KHR_texture_transform that the importer bakes into them).
#pragma once

#include <array>

#include "assets/import_textures.hpp"
#include "assets/scene_data.hpp"

struct aiMaterial;

namespace batchsim::assets {

// The texture coordinates a material's base-colour texture samples at vertex i:
// affine applied to set `channel` (Assimp's UV channel; glTF's TEXCOORD_n).
struct UvMapping {
    unsigned channel = 0;
    // (u, v) -> (m[0] u + m[1] v + m[2], m[3] u + m[4] v + m[5])
    std::array<float, 6> affine{1, 0, 0, 0, 1, 0};

    [[nodiscard]] std::array<float, 2> apply(float u, float v) const {
        return {affine[0] * u + affine[1] * v + affine[2],
                affine[3] * u + affine[4] * v + affine[5]};
    }
};

// The mapping of `material`'s base-colour texture. With `apply_gltf_transform` (a glTF file, read
// without Assimp's TransformUVCoords step) its KHR_texture_transform becomes the affine part;
// otherwise Assimp has applied any transform already.
UvMapping base_color_uv_mapping(const aiMaterial& material, bool apply_gltf_transform);

// Base colour factor (glTF baseColorFactor, else the diffuse colour and opacity) and
// texture (base colour, else diffuse), loaded through `textures`.
Material import_material(const aiMaterial& material, TextureLoader& textures);

}  // namespace batchsim::assets
