// glTF features Assimp drops without a word, refused here so that no scene renders wrong:
// base-colour textures whose only image is Basis Universal (KTX2 through KHR_texture_basisu,
// or .basis through the older GOOGLE_texture_basis) and a KHR_texture_transform texCoord
// that overrides the texture's own.
#pragma once

#include <string_view>

#include "assets/gltf_json.hpp"

namespace batchsim::assets::gltf {

// How to turn a glTF's KTX2 textures into PNGs, for messages: glTF-Transform's CLI (npm
// package @gltf-transform/cli), which calls KTX-Software's `ktx` tool.
inline constexpr std::string_view kKtx2Advice =
    "convert its textures to PNG first, e.g. `gltf-transform ktxdecompress in.glb out.glb` "
    "(npm package @gltf-transform/cli; it needs KTX-Software's `ktx` tool), or use a release "
    "of the scene with PNG/JPEG textures (HM3D has one besides its .basis.glb files)";

// Checks every material's base-colour texture in `doc` (a parsed glTF). Throws
// Error(Unsupported) naming `origin`, the material and texture, the extension and what to do.
void check_base_color_textures(const JsonValue& doc, std::string_view origin);

}  // namespace batchsim::assets::gltf
