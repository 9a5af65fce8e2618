#include "assets/texture_groups.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "assets/packed_scene.hpp"
#include "assets/packed_scene_writer.hpp"
#include "assets/textures.hpp"
#include "packed_scene_test_utils.hpp"

namespace {

using batchsim::assets::group_textures;
using batchsim::assets::kMaxGroupLayers;
using batchsim::assets::kMaxTextureGroups;
using batchsim::assets::limit_texture_sizes;
using batchsim::assets::make_texture;
using batchsim::assets::PackedScene;
using batchsim::assets::SceneData;
using batchsim::assets::texture_sizes;
using batchsim::assets::TextureData;
using batchsim::assets::TextureFormat;
using batchsim::assets::TextureSize;

// A solid texture: its colour survives resampling and mip-mapping.
TextureData solid(std::uint32_t width, std::uint32_t height, std::uint8_t shade) {
    std::vector<std::uint8_t> rgba(std::size_t{width} * height * 4, 255);
    for (std::size_t i = 0; i < rgba.size(); i += 4) rgba[i] = rgba[i + 1] = shade;
    return make_texture("t" + std::to_string(shade), width, height, std::move(rgba));
}

// 20 sizes: (s + 2) x 3 for s < 16 with 3 textures each (48 textures), then four rare sizes
// with one texture each (40x40, 7x5, 1x1, 17x6), which packing resamples.
std::vector<TextureData> many_sizes() {
    std::vector<TextureData> textures;
    for (std::uint32_t s = 0; s < 16; ++s)
        for (std::uint32_t k = 0; k < 3; ++k)
            textures.push_back(solid(s + 2, 3, static_cast<std::uint8_t>(textures.size())));
    for (const auto& [w, h] : {std::pair{40u, 40u}, {7u, 5u}, {1u, 1u}, {17u, 6u}})
        textures.push_back(solid(w, h, static_cast<std::uint8_t>(100 + w)));
    return textures;
}

SceneData quad_scene(std::vector<TextureData> textures) {
    SceneData scene;
    scene.vertices = {{0, 0, 0, 0, 1, 0, 0, 0},
                      {1, 0, 0, 0, 1, 0, 1, 0},
                      {1, 0, 1, 0, 1, 0, 1, 1},
                      {0, 0, 1, 0, 1, 0, 0, 1}};
    scene.indices = {0, 1, 2, 0, 2, 3};
    scene.chunks = {{0, 0, 0, 0, 1, 0, 1, 6, 0, 0, 0, 0}};
    scene.materials = {{1, 1, 1, 1, 0, 0, 0, 0}};
    scene.textures = std::move(textures);
    scene.bounds = {{0, 0, 0}, {1, 0, 1}};
    scene.source = "synthetic/sizes.glb";
    return scene;
}

}  // namespace

TEST_CASE("textures group by size, slots in order of first use, layers in texture order",
          "[texture_groups]") {
    const std::vector<TextureSize> sizes{{4, 4, 3}, {8, 2, 4}, {4, 4, 3}, {4, 4, 1}, {8, 2, 4}};
    const auto groups = group_textures(sizes);
    CHECK(groups.sizes == std::vector<TextureSize>{{4, 4, 3}, {8, 2, 4}, {4, 4, 1}});
    CHECK(groups.count == std::vector<std::uint32_t>{2, 2, 1});
    CHECK(groups.group == std::vector<std::uint32_t>{0, 1, 0, 2, 1});
    CHECK(groups.layer == std::vector<std::uint32_t>{0, 0, 1, 0, 1});
}

TEST_CASE("formats group apart, and a full group opens another of its size", "[texture_groups]") {
    std::vector<TextureSize> sizes(kMaxGroupLayers + 1, TextureSize{4, 4, 3});
    sizes.insert(sizes.begin() + 1, TextureSize{4, 4, 3, TextureFormat::Bc1Srgb});
    const auto groups = group_textures(sizes);
    REQUIRE(groups.sizes.size() == 3);
    CHECK(groups.sizes[1].format == TextureFormat::Bc1Srgb);
    CHECK(groups.count == std::vector<std::uint32_t>{kMaxGroupLayers, 1, 1});
    CHECK(groups.group.back() == 2);
    CHECK(groups.layer.back() == 0);
    CHECK(groups.layer[sizes.size() - 2] == kMaxGroupLayers - 1);
}

TEST_CASE("scenes with at most 16 sizes keep their textures as they are", "[texture_groups]") {
    std::vector<TextureData> textures = many_sizes();
    textures.resize(48);
    const std::vector<TextureData> before = textures;
    CHECK(limit_texture_sizes(textures) == 0);
    for (std::size_t i = 0; i < textures.size(); ++i) CHECK(textures[i].pixels == before[i].pixels);
}

TEST_CASE("the rarest sizes are resampled to the nearest kept size", "[texture_groups]") {
    std::vector<TextureData> textures = many_sizes();
    const std::vector<TextureData> before = textures;
    CHECK(limit_texture_sizes(textures) == 4);
    const auto groups = group_textures(texture_sizes(textures));
    CHECK(groups.sizes.size() == kMaxTextureGroups);
    for (std::size_t i = 0; i < 48; ++i) CHECK(textures[i].pixels == before[i].pixels);
    // Nearest in log2 of width and height; ties go to the larger size.
    CHECK(TextureSize{textures[48].width, textures[48].height} == TextureSize{17, 3});
    CHECK(TextureSize{textures[49].width, textures[49].height} == TextureSize{7, 3});
    CHECK(TextureSize{textures[50].width, textures[50].height} == TextureSize{2, 3});
    CHECK(TextureSize{textures[51].width, textures[51].height} == TextureSize{17, 3});
    for (std::size_t i = 48; i < textures.size(); ++i) {
        INFO("texture " << i);
        const TextureData& t = textures[i];
        CHECK(t.name == before[i].name);
        CHECK(t.mip_count == batchsim::assets::full_mip_count(t.width, t.height));
        CHECK(t.pixels.size() == batchsim::assets::mip_chain_bytes(t.width, t.height, t.mip_count));
        for (std::size_t p = 0; p < t.pixels.size(); p += 4)  // still the same solid colour
            CHECK(std::abs(int(t.pixels[p]) - int(before[i].pixels[0])) <= 1);
    }
}

TEST_CASE("packing limits texture sizes deterministically", "[texture_groups]") {
    const SceneData scene = quad_scene(many_sizes());
    const std::vector<std::uint8_t> bytes = batchsim::assets::pack_scene(scene);
    CHECK(batchsim::assets::pack_scene(scene) == bytes);
    const PackedScene packed = PackedScene::from_bytes(bytes);
    REQUIRE(packed.texture_count() == 52);
    std::set<TextureSize> sizes;
    for (std::size_t i = 0; i < packed.texture_count(); ++i)
        sizes.insert(
            {packed.texture(i).width, packed.texture(i).height, packed.texture(i).mip_count});
    CHECK(sizes.size() == kMaxTextureGroups);
}

TEST_CASE("loading rejects a packed scene with more than 16 texture sizes", "[texture_groups]") {
    std::vector<TextureData> textures = many_sizes();
    textures.resize(48);
    const std::vector<std::uint8_t> bytes = batchsim::assets::pack_scene(quad_scene(textures));
    // Texture 1 shares texture 0's size; with one mip level it becomes a 17th size.
    const auto file = batchsim::test::with<batchsim::assets::packed::TextureRecord>(
        bytes, batchsim::assets::packed::SectionKind::TextureTable, 1, [](auto& r) {
            r.mip_count = 1;
            r.pixel_size = std::uint64_t{r.width} * r.height * 4;
        });
    batchsim::test::require_structural(
        file,
        "has 17 texture groups (by size, mips and format, at most 2048 each), renderers hold "
        "16: re-import");
}
