// A scene's texture memory budget. Real scans carry hundreds of megabytes of textures,
// far more detail than 64x64 to 256x256 agent cameras resolve, and every resident scene
// holds its textures on the GPU. So packing fits a scene's textures to a budget, the same
// way every time: it drops the top mip level of the largest textures (those of the greatest
// width or height), then of the next largest, and so on: halving a texture costs no
// resampling (its level 1 becomes level 0), keeps texture groups as few as they were, and
// takes detail first where there is most.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "assets/scene_data.hpp"

namespace batchsim::assets {

// 256 MiB: the trainer keeps two scenes per resident slot (one drawn, one loading), so 16
// slots of scans at the budget take 8 GiB of a 24 GB GPU, and leave the rest to geometry,
// frames and the learner. With BC1 the same bytes hold 8x the texels.
inline constexpr std::uint64_t kDefaultTextureBudgetBytes = std::uint64_t{256} << 20;
// Budgets never shrink a texture below this width and height (smaller ones stay as they
// are): a scene that needs more is over the budget, not a blur.
inline constexpr std::uint32_t kMinBudgetExtent = 32;

struct TexturePolicy {
    std::uint64_t budget_bytes = kDefaultTextureBudgetBytes;  // of stored mip chains
    TextureFormat format = TextureFormat::Rgba8Srgb;          // what packing stores
};

struct TextureFit {
    std::uint64_t bytes_before = 0;  // the chains as imported, stored in the policy's format
    std::uint64_t bytes = 0;         // after fitting
    std::size_t textures_shrunk = 0;
};

// Bytes of `textures`' chains stored as `format`.
std::uint64_t texture_bytes(const std::vector<TextureData>& textures, TextureFormat format);

// Drops top mip levels (see above) of RGBA8 `textures` until their chains, stored in
// policy.format, fit policy.budget_bytes. Throws Error(InvalidArgument) naming `scene`,
// the bytes it needs with every texture at kMinBudgetExtent and the budget if they cannot.
TextureFit fit_texture_budget(std::vector<TextureData>& textures, const TexturePolicy& policy,
                              std::string_view scene);

// What packing does to an imported scene's textures: at most kMaxTextureGroups sizes
// (limit_texture_sizes), fitted to the budget, then encoded in policy.format.
TextureFit prepare_textures(std::vector<TextureData>& textures, const TexturePolicy& policy,
                            std::string_view scene);

}  // namespace batchsim::assets
