#include "assets/import_materials.hpp"

#include <assimp/material.h>
#include <assimp/mesh.h>

#include <cmath>

namespace batchsim::assets {
namespace {

// Where the base colour's texture is: glTF's base colour, else the classic diffuse map.
aiTextureType base_color_type(const aiMaterial& material) {
    for (const aiTextureType type : {aiTextureType_BASE_COLOR, aiTextureType_DIFFUSE}) {
        if (material.GetTextureCount(type) > 0) return type;
    }
    return aiTextureType_NONE;
}

// Assimp's glTF reader stores KHR_texture_transform (offset o, rotation r, scale s) as an
// aiUVTransform meant for its TransformUVCoords step: rotation -r, scale s and a translation
// that moves glTF's rotation centre (the UV origin) to Assimp's (0.5, 0.5), with v flipped
// (assimp glTF2Importer.cpp, "A change of coordinates is required..."); FlipUVs then negates
// that rotation and the translation's v. TransformUVCoords turns rotations the wrong way
// (assimp 5.2: TextureTransformTest shows its red marker), so the encoding is inverted here
// and glTF's own matrix applied to the glTF UVs we keep: T(o) R(r) S(s) with
// R = [[cos r, sin r], [-sin r, cos r]], the sense of Khronos' sample viewer and of the test
// model's green marker.
std::array<float, 6> gltf_transform(const aiUVTransform& flipped) {
    const double r = flipped.mRotation, c = std::cos(r), s = std::sin(r);
    const double sx = flipped.mScaling.x, sy = flipped.mScaling.y;
    const double ox = flipped.mTranslation.x - 0.5 * sx * (1 - c + s);
    const double oy = 0.5 * sy * (s + c - 1) + 1 - sy + flipped.mTranslation.y;
    const std::array<double, 6> m{sx * c, sy * s, ox, -sx * s, sy * c, oy};
    std::array<float, 6> out{};
    for (std::size_t i = 0; i < m.size(); ++i) out[i] = static_cast<float>(m[i]);
    return out;
}

}  // namespace

UvMapping base_color_uv_mapping(const aiMaterial& material, bool apply_gltf_transform) {
    UvMapping mapping;
    const aiTextureType type = base_color_type(material);
    if (type == aiTextureType_NONE) return mapping;
    int channel = 0;
    if (material.Get(AI_MATKEY_UVWSRC(type, 0), channel) == AI_SUCCESS && channel > 0 &&
        channel < AI_MAX_NUMBER_OF_TEXTURECOORDS)
        mapping.channel = static_cast<unsigned>(channel);
    aiUVTransform transform;
    if (apply_gltf_transform &&
        material.Get(AI_MATKEY_UVTRANSFORM(type, 0), transform) == AI_SUCCESS)
        mapping.affine = gltf_transform(transform);
    return mapping;
}

Material import_material(const aiMaterial& material, TextureLoader& textures) {
    aiColor4D color(1, 1, 1, 1);
    if (material.Get(AI_MATKEY_BASE_COLOR, color) != AI_SUCCESS &&
        material.Get(AI_MATKEY_COLOR_DIFFUSE, color) == AI_SUCCESS) {
        float opacity = 1.0f;  // classic materials keep alpha apart from the diffuse colour
        if (material.Get(AI_MATKEY_OPACITY, opacity) == AI_SUCCESS) color.a = opacity;
    }
    Material out{color.r, color.g, color.b, color.a, gpu::kNoTexture, 0, 0, 0};
    const aiTextureType type = base_color_type(material);
    aiString path;
    if (type != aiTextureType_NONE && material.GetTexture(type, 0, &path) == AI_SUCCESS &&
        path.length > 0)
        out.base_color_texture = textures.index_of(path.C_Str());
    return out;
}

}  // namespace batchsim::assets
