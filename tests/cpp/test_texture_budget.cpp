// Texture budgets (drop top mip levels, largest textures first) and BC1 compression.
#include "assets/texture_budget.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>
#include <utility>

#include "assets/packed_scene.hpp"
#include "assets/packed_scene_format.hpp"
#include "assets/packed_scene_writer.hpp"
#include "assets/texture_compression.hpp"
#include "assets/texture_groups.hpp"
#include "assets/textures.hpp"
#include "core/check.hpp"

using batchsim::Error;
using namespace batchsim::assets;

namespace {

std::vector<std::uint8_t> noise(std::uint32_t width, std::uint32_t height, unsigned seed) {
    std::mt19937 random(seed);
    std::vector<std::uint8_t> rgba(std::size_t{width} * height * 4);
    for (auto& byte : rgba) byte = static_cast<std::uint8_t>(random());
    return rgba;
}

// A gentle ramp along one line of colour space, what BC1 (two endpoints and two colours
// between them per 4x4 block) represents well; some texels translucent.
std::vector<std::uint8_t> ramp(std::uint32_t width, std::uint32_t height) {
    std::vector<std::uint8_t> rgba;
    for (std::uint32_t y = 0; y < height; ++y) {
        for (std::uint32_t x = 0; x < width; ++x) {
            const std::uint32_t t = std::min(x + y, 90u);
            rgba.insert(rgba.end(), {std::uint8_t(60 + 2 * t), std::uint8_t(200 - t),
                                     std::uint8_t(40 + t), std::uint8_t(x % 3 == 0 ? 10 : 255)});
        }
    }
    return rgba;
}

std::vector<TextureData> mixed_textures() {
    return {make_texture("big.png", 256, 128, noise(256, 128, 1)),
            make_texture("odd.png", 100, 60, noise(100, 60, 2)),
            make_texture("big2.png", 256, 128, noise(256, 128, 3)),
            make_texture("small.png", 32, 32, noise(32, 32, 4))};
}

// One triangle whose material samples `texture`.
SceneData textured_triangle(TextureData texture) {
    SceneData scene;
    scene.vertices = {{0, 0, 0, 0, 1, 0, 0, 0}, {1, 0, 0, 0, 1, 0, 1, 0}, {1, 0, 1, 0, 1, 0, 1, 1}};
    scene.indices = {0, 1, 2};
    scene.chunks = {{0, 0, 0, 0, 1, 0, 1, 3, 0, 0, 0, 0}};
    scene.materials = {{1, 1, 1, 1, 0, 0, 0, 0}};
    scene.textures = {std::move(texture)};
    scene.bounds = {{0, 0, 0}, {1, 0, 1}};
    scene.source = "bc1.glb";
    return scene;
}

}  // namespace

TEST_CASE("a scene within its budget keeps its textures", "[texture_budget]") {
    auto textures = mixed_textures();
    const auto before = textures;
    const TextureFit fit = fit_texture_budget(textures, {.budget_bytes = 1u << 20}, "s.glb");
    CHECK(fit.textures_shrunk == 0);
    CHECK(fit.bytes == fit.bytes_before);
    CHECK(fit.bytes == texture_bytes(before, TextureFormat::Rgba8Srgb));
    for (std::size_t i = 0; i < textures.size(); ++i) CHECK(textures[i].pixels == before[i].pixels);
}

TEST_CASE("budgets drop the top levels of the largest textures first", "[texture_budget]") {
    auto textures = mixed_textures();
    const auto before = textures;
    const std::uint64_t full = texture_bytes(before, TextureFormat::Rgba8Srgb);
    // Just under everything: one round, the two 256-wide textures lose their top level.
    const TextureFit fit = fit_texture_budget(textures, {.budget_bytes = full - 1}, "s.glb");
    CHECK(fit.textures_shrunk == 2);
    CHECK(fit.bytes <= full - 1);
    CHECK(fit.bytes == texture_bytes(textures, TextureFormat::Rgba8Srgb));
    for (const std::size_t i : {0u, 2u}) {
        CHECK(textures[i].width == 128);
        CHECK(textures[i].height == 64);
        CHECK(textures[i].mip_count == before[i].mip_count - 1);
        // The old level 1 and below, exactly: no resampling.
        const std::size_t top = mip_chain_bytes(256, 128, 1);
        CHECK(std::equal(textures[i].pixels.begin(), textures[i].pixels.end(),
                         before[i].pixels.begin() + std::ptrdiff_t(top), before[i].pixels.end()));
    }
    CHECK(textures[1].pixels == before[1].pixels);
    CHECK(textures[3].pixels == before[3].pixels);

    // A tighter budget: 256 -> 128 -> the 128s and the 100-wide one go to 64 and 50.
    auto tighter = mixed_textures();
    const std::uint64_t budget = texture_bytes(textures, TextureFormat::Rgba8Srgb) - 1;
    fit_texture_budget(tighter, {.budget_bytes = budget}, "s.glb");
    CHECK(tighter[0].width == 64);
    CHECK(tighter[1].width == 100);  // below the largest extent (128) in that round
    CHECK(tighter[3].width == 32);   // at the floor
}

TEST_CASE("budget fitting is deterministic and never adds texture groups", "[texture_budget]") {
    std::mt19937 random(7);
    for (int round = 0; round < 20; ++round) {
        std::vector<TextureData> textures;
        for (int i = 0; i < 12; ++i) {
            const std::uint32_t w = 8 + random() % 300, h = 8 + random() % 300;
            textures.push_back(make_texture("t.png", w, h, noise(w, h, random())));
        }
        const auto groups_before = group_textures(texture_sizes(textures)).sizes.size();
        const std::uint64_t full = texture_bytes(textures, TextureFormat::Rgba8Srgb);
        const TexturePolicy policy{.budget_bytes = full / (2 + random() % 6)};
        auto again = textures;
        const TextureFit a = fit_texture_budget(textures, policy, "s.glb");
        const TextureFit b = fit_texture_budget(again, policy, "s.glb");
        CHECK(a.bytes == b.bytes);
        CHECK(a.bytes <= policy.budget_bytes);
        for (std::size_t i = 0; i < textures.size(); ++i)
            CHECK(textures[i].pixels == again[i].pixels);
        CHECK(group_textures(texture_sizes(textures)).sizes.size() <= groups_before);
    }
}

TEST_CASE("a scene over its budget even at the floor is refused", "[texture_budget]") {
    auto textures = mixed_textures();
    const auto before = textures;
    try {
        fit_texture_budget(textures, {.budget_bytes = 1000}, "house.glb");
        FAIL("expected Error(InvalidArgument)");
    } catch (const Error& error) {
        CHECK(error.kind() == Error::Kind::InvalidArgument);
        CHECK_THAT(error.what(), Catch::Contains("scene 'house.glb' is over its texture budget: "
                                                 "its 4 textures take"));
        CHECK_THAT(error.what(),
                   Catch::Contains("even at 32 texels a side, the budget is 0.0 MiB"));
    }
    for (std::size_t i = 0; i < textures.size(); ++i) CHECK(textures[i].pixels == before[i].pixels);
}

TEST_CASE("BC1 chains have the right sizes and decode close to the source", "[texture_budget]") {
    for (const auto& [w, h] : {std::pair{64u, 32u}, {6u, 3u}, {1u, 1u}, {13u, 7u}}) {
        INFO(w << "x" << h);
        const TextureData rgba = make_texture("r.png", w, h, ramp(w, h));
        const TextureData bc1 = compress_texture(rgba, TextureFormat::Bc1Srgb);
        CHECK(bc1.format == TextureFormat::Bc1Srgb);
        CHECK(bc1.mip_count == rgba.mip_count);
        CHECK(bc1.pixels.size() == mip_chain_bytes(w, h, rgba.mip_count, TextureFormat::Bc1Srgb));
        const auto decoded =
            decode_level({bc1.pixels.data(), level_bytes(w, h, TextureFormat::Bc1Srgb)}, w, h,
                         TextureFormat::Bc1Srgb);
        REQUIRE(decoded.size() == std::size_t{w} * h * 4);
        double error = 0;
        for (std::size_t i = 0; i < decoded.size(); ++i) {
            if (i % 4 == 3) {
                CHECK(decoded[i] == 255);  // alpha dropped: opaque
                continue;
            }
            error += std::abs(int(decoded[i]) - int(rgba.pixels[i]));
        }
        // 565 endpoints (steps of 8 and 4 levels) and a 4-colour palette over a block whose
        // colours span at most ~12 levels: a few levels of error on average.
        CHECK(error / (double(w) * h * 3) < 4.0);
    }
}

TEST_CASE("a solid 565 colour survives BC1 exactly", "[texture_budget]") {
    std::vector<std::uint8_t> red(std::size_t{16} * 16 * 4);
    for (std::size_t i = 0; i < red.size(); i += 4) red[i] = 255, red[i + 3] = 255;
    const TextureData bc1 =
        compress_texture(make_texture("red.png", 16, 16, red), TextureFormat::Bc1Srgb);
    const auto decoded = decode_level({bc1.pixels.data(), 128}, 16, 16, TextureFormat::Bc1Srgb);
    CHECK(decoded == red);
}

TEST_CASE("BC1 scenes pack, load and copy with their format", "[texture_budget]") {
    SceneData scene = textured_triangle(make_texture("a.png", 40, 24, ramp(40, 24)));
    const TextureFit fit = prepare_textures(
        scene.textures, {.budget_bytes = 1u << 20, .format = TextureFormat::Bc1Srgb}, "bc1.glb");
    CHECK(fit.bytes == mip_chain_bytes(40, 24, 6, TextureFormat::Bc1Srgb));
    const PackedScene loaded = PackedScene::from_bytes(pack_scene(scene));
    const TextureView view = loaded.texture(0);
    CHECK(view.format == TextureFormat::Bc1Srgb);
    CHECK(view.pixels.size() == fit.bytes);
    CHECK(std::equal(view.pixels.begin(), view.pixels.end(), scene.textures[0].pixels.begin()));
    CHECK(loaded.to_scene_data().textures[0].format == TextureFormat::Bc1Srgb);
    CHECK(pack_scene(loaded.to_scene_data()) == pack_scene(scene));
    // Compressing twice, or fitting compressed textures, is a caller's mistake.
    CHECK_THROWS_WITH(compress_texture(scene.textures[0], TextureFormat::Bc1Srgb),
                      Catch::Contains("texture 'a.png' is already bc1"));
    CHECK_THROWS_WITH(fit_texture_budget(scene.textures, {}, "bc1.glb"),
                      Catch::Contains("budgets apply to RGBA8 textures"));
}

TEST_CASE("version 3 files (RGBA8 textures, no format field) still load", "[packed_scene]") {
    const SceneData scene =
        textured_triangle(make_texture("a.png", 4, 2, std::vector<std::uint8_t>(32, 7)));
    auto file = pack_scene(scene);
    REQUIRE(file[8] == 4);
    file[8] = 3;
    packed::seal(file);
    const PackedScene loaded = PackedScene::from_bytes(file);
    CHECK(loaded.texture(0).format == TextureFormat::Rgba8Srgb);
    CHECK(loaded.texture(0).pixels.size() == 44);
}

TEST_CASE("texture format names parse both ways", "[texture_budget]") {
    CHECK(parse_texture_format("bc1") == TextureFormat::Bc1Srgb);
    CHECK(std::string(format_name(parse_texture_format("rgba8"))) == "rgba8");
    CHECK_THROWS_WITH(parse_texture_format("bc7"),
                      Catch::Contains("texture format: expected 'rgba8' or 'bc1', got 'bc7'"));
}
