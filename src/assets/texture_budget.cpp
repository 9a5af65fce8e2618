#include "assets/texture_budget.hpp"

#include <algorithm>
#include <iomanip>

#include "assets/texture_compression.hpp"
#include "assets/texture_groups.hpp"
#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::assets {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string mib(std::uint64_t bytes) {
    return str(std::fixed, std::setprecision(1), static_cast<double>(bytes) / kMiB, " MiB");
}

std::uint32_t extent(const TextureData& t) {
    return std::max(t.width, t.height);
}

// Textures that may lose a level: above the floor, with a level below the top.
bool shrinkable(const TextureData& t, std::uint32_t drops) {
    return (extent(t) >> drops) > kMinBudgetExtent && t.mip_count > drops + 1;
}

// The chain of `t` after dropping `drops` top levels, stored as `format`.
std::uint64_t chain_bytes(const TextureData& t, std::uint32_t drops, TextureFormat format) {
    return mip_chain_bytes(std::max(t.width >> drops, 1u), std::max(t.height >> drops, 1u),
                           t.mip_count - drops, format);
}

void drop_top_levels(TextureData& t, std::uint32_t drops) {
    if (drops == 0) return;
    t.pixels.erase(t.pixels.begin(),
                   t.pixels.begin() + std::ptrdiff_t(mip_chain_bytes(t.width, t.height, drops)));
    t.width = std::max(t.width >> drops, 1u);
    t.height = std::max(t.height >> drops, 1u);
    t.mip_count -= drops;
}

// How many top levels each texture loses: in rounds, every texture of the greatest
// remaining extent loses one more, until the chains fit or none can shrink.
std::vector<std::uint32_t> plan_drops(const std::vector<TextureData>& textures,
                                      const TexturePolicy& policy, std::uint64_t& bytes) {
    std::vector<std::uint32_t> drops(textures.size(), 0);
    while (bytes > policy.budget_bytes) {
        std::uint32_t largest = 0;
        for (std::size_t i = 0; i < textures.size(); ++i)
            if (shrinkable(textures[i], drops[i]))
                largest = std::max(largest, extent(textures[i]) >> drops[i]);
        if (largest == 0) break;
        for (std::size_t i = 0; i < textures.size(); ++i) {
            const TextureData& t = textures[i];
            if (!shrinkable(t, drops[i]) || (extent(t) >> drops[i]) != largest) continue;
            bytes -= chain_bytes(t, drops[i], policy.format) -
                     chain_bytes(t, drops[i] + 1, policy.format);
            ++drops[i];
        }
    }
    return drops;
}

}  // namespace

std::uint64_t texture_bytes(const std::vector<TextureData>& textures, TextureFormat format) {
    std::uint64_t total = 0;
    for (const TextureData& t : textures) total += chain_bytes(t, 0, format);
    return total;
}

TextureFit fit_texture_budget(std::vector<TextureData>& textures, const TexturePolicy& policy,
                              std::string_view scene) {
    for (const TextureData& t : textures)
        BATCHSIM_CHECK(t.format == TextureFormat::Rgba8Srgb, InvalidArgument,
                       str("texture '", t.name, "' is ", format_name(t.format),
                           ": budgets apply to RGBA8 textures, before compression"));
    TextureFit fit;
    fit.bytes_before = fit.bytes = texture_bytes(textures, policy.format);
    const std::vector<std::uint32_t> drops = plan_drops(textures, policy, fit.bytes);
    BATCHSIM_CHECK(
        fit.bytes <= policy.budget_bytes, InvalidArgument,
        str("scene '", scene, "' is over its texture budget: its ", textures.size(),
            " textures take ", mib(fit.bytes), " as ", format_name(policy.format), " even at ",
            kMinBudgetExtent, " texels a side, the budget is ", mib(policy.budget_bytes),
            " (raise texture_budget_mib / --texture-budget-mib, or compress: bc1)"));
    for (std::size_t i = 0; i < textures.size(); ++i) {
        drop_top_levels(textures[i], drops[i]);
        fit.textures_shrunk += drops[i] > 0 ? 1 : 0;
    }
    return fit;
}

TextureFit prepare_textures(std::vector<TextureData>& textures, const TexturePolicy& policy,
                            std::string_view scene) {
    limit_texture_sizes(textures);
    const TextureFit fit = fit_texture_budget(textures, policy, scene);
    compress_textures(textures, policy.format);
    return fit;
}

}  // namespace batchsim::assets
