// BC1 scene textures on the GPU: kept compressed where the device samples BC1, decoded to
// RGBA8 on upload where it does not.
#include <catch2/catch.hpp>

#include <cstring>

#include "assets/packed_scene.hpp"
#include "assets/packed_scene_writer.hpp"
#include "assets/texture_budget.hpp"
#include "assets/texture_compression.hpp"
#include "assets/textures.hpp"
#include "render/gpu_scene.hpp"
#include "vk/upload.hpp"
#include "vk_test_device.hpp"

using namespace batchsim::assets;
using namespace batchsim::render;
namespace vk = batchsim::vk;

namespace {

using Fixture = batchsim::test::ValidatedDevice;

std::vector<std::uint8_t> pattern(std::uint32_t width, std::uint32_t height) {
    std::vector<std::uint8_t> rgba;
    for (std::uint32_t y = 0; y < height; ++y)
        for (std::uint32_t x = 0; x < width; ++x)
            rgba.insert(rgba.end(), {std::uint8_t(x * 9), std::uint8_t(y * 13), 99, 255});
    return rgba;
}

// A triangle with two BC1 textures: 30x18 (not a multiple of the 4x4 blocks), and 8x8.
PackedScene bc1_scene() {
    SceneData scene;
    scene.vertices = {{0, 0, 0, 0, 1, 0, 0, 0}, {1, 0, 0, 0, 1, 0, 1, 0}, {1, 0, 1, 0, 1, 0, 1, 1}};
    scene.indices = {0, 1, 2};
    scene.chunks = {{0, 0, 0, 0, 1, 0, 1, 3, 0, 0, 0, 0}};
    scene.materials = {{1, 1, 1, 1, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 0, 0, 0}};
    scene.textures = {make_texture("a.png", 30, 18, pattern(30, 18)),
                      make_texture("b.png", 8, 8, pattern(8, 8))};
    scene.bounds = {{0, 0, 0}, {1, 0, 1}};
    scene.source = "bc1.glb";
    prepare_textures(scene.textures, {.format = TextureFormat::Bc1Srgb}, scene.source);
    return PackedScene::from_bytes(pack_scene(scene));
}

// Each level of each texture as the GPU holds it, against `expected(texture, level)`.
template <typename Expected>
void check_levels(const vk::Device& device, const GpuScene& gpu, const PackedScene& packed,
                  Expected expected) {
    REQUIRE(gpu.textures.size() == 2);
    for (std::uint32_t t = 0; t < 2; ++t) {
        const TextureView texture = packed.texture(t);
        REQUIRE(gpu.textures[t].mip_levels == texture.mip_count);
        for (std::uint32_t level = 0; level < texture.mip_count; ++level) {
            INFO("texture " << t << " level " << level);
            CHECK(vk::download_image_level(device, gpu.textures[t], level) ==
                  expected(texture, level));
        }
    }
}

// Level `level` of `texture` as stored in the packed file.
std::vector<std::uint8_t> stored_level(const TextureView& t, std::uint32_t level) {
    const std::size_t offset = mip_chain_bytes(t.width, t.height, level, t.format);
    const std::uint32_t w = std::max(t.width >> level, 1u), h = std::max(t.height >> level, 1u);
    const auto bytes = t.pixels.subspan(offset, level_bytes(w, h, t.format));
    return {bytes.begin(), bytes.end()};
}

}  // namespace

TEST_CASE_METHOD(Fixture, "BC1 textures stay compressed on devices that sample BC1",
                 "[gpu_scene]") {
    REQUIRE(device.features.texture_compression_bc);  // lavapipe and every desktop GPU
    const PackedScene packed = bc1_scene();
    // A staging buffer of a few block rows: copies split inside levels.
    GpuScene gpu = create_gpu_scene(device, packed, {.staging_bytes = 64});
    CHECK(gpu.textures[0].format == VK_FORMAT_BC1_RGB_SRGB_BLOCK);
    check_levels(device, gpu, packed, stored_level);
    CHECK(gpu.texture_bytes() >= packed.texture(0).pixels.size() + packed.texture(1).pixels.size());
    destroy_gpu_scene(device, gpu);
}

TEST_CASE_METHOD(Fixture, "BC1 textures are decoded to RGBA8 on devices without BC1",
                 "[gpu_scene]") {
    const PackedScene packed = bc1_scene();
    vk::Device without_bc = device;  // the same device, told it lacks the feature
    without_bc.features.texture_compression_bc = false;
    GpuScene gpu = create_gpu_scene(without_bc, packed, {.staging_bytes = 256});
    CHECK(gpu.textures[0].format == VK_FORMAT_R8G8B8A8_SRGB);
    check_levels(device, gpu, packed, [](const TextureView& t, std::uint32_t level) {
        const std::uint32_t w = std::max(t.width >> level, 1u), h = std::max(t.height >> level, 1u);
        return decode_level(stored_level(t, level), w, h, t.format);
    });
    CHECK(gpu_scene_data_bytes(packed, false, true) >
          gpu_scene_data_bytes(packed, false, false) + VkDeviceSize{4} * 30 * 18);
    destroy_gpu_scene(device, gpu);
}
