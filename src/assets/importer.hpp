// Model import: any format Assimp reads (glTF/GLB, OBJ, PLY, FBX, Collada, STL, ...) becomes a
// SceneData in batchsim's conventions: metres, y up, glTF texture coordinates, one vertex and
// index range per material, RGBA8 textures with full mip chains.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "assets/scene_data.hpp"

namespace batchsim::assets {

struct ImportOptions {
    // Source axes giving the new x,y,z ("x,z,-y" turns a z-up scan y-up), or the shorthand
    // "y" / "z" for the source's up axis; see parse_axes.
    std::string axes = "x,y,z";
    // Multiplies positions after the axis mapping: source units -> metres (0.01 for cm).
    float scale = 1.0f;
    // Most triangles per chunk: small enough for tight culling boxes, large enough that a
    // scene has only a few hundred chunks to cull and draw (1,024 drew 6% faster than 4,096
    // on an H200 and as fast as 256, by the raster draw pass's GPU timestamps).
    std::uint32_t chunk_triangles = 1024;
};

// Row i maps a source vector to new axis i: new[i] = sum_j matrix[i][j] * old[j].
using AxisMatrix = std::array<std::array<float, 3>, 3>;

// The axes spec for a source whose up axis is `up`: 'y' -> "x,y,z", 'z' -> "x,z,-y".
// Throws Error(InvalidArgument) for any other letter.
std::string axes_for_up(char up);

// Parses three comma-separated signed source axes ("x,z,-y") or an up-axis shorthand ("y",
// "z"). Throws Error(InvalidArgument) quoting `spec` unless it is a signed permutation.
AxisMatrix parse_axes(std::string_view spec);

// det(m): -1 for a mapping that mirrors the model (its winding must flip), else 1.
float determinant(const AxisMatrix& m);

// Imports `source`. Throws Error(FileNotFound) if it does not exist, Error(InvalidArgument)
// for bad options, Error(CorruptData) if it is empty, it is a PLY whose header has no end_header
// line (Assimp would hang on it), Assimp cannot read it, it holds no
// triangles, a position is not finite, its total triangle area is below 1e-8 m^2, or a
// texture it embeds or names cannot be decoded, Error(Unsupported) for textures batchsim
// cannot decode (KTX2 / KHR_texture_basisu, with how to convert them) and glTF features
// Assimp would silently get wrong (see gltf_checks.hpp). Zero-area triangles are dropped.
// A glTF's missing external texture is Error(FileNotFound); other formats' missing textures
// (their paths are often the author's absolute ones) leave the material untextured, with a
// warning on stderr. glTF details: node transforms are baked into positions, every
// primitive keeps its material, COLOR_0 becomes the vertex colour, and the base-colour
// texture's texCoord and KHR_texture_transform are baked into the UVs.
SceneData import_model(const std::filesystem::path& source, const ImportOptions& options);

}  // namespace batchsim::assets
