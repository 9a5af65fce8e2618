#include "render/gpu_scene.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <tuple>
#include <vector>

#include "assets/packed_scene.hpp"
#include "assets/packed_scene_writer.hpp"
#include "assets/textures.hpp"
#include "core/check.hpp"
#include "vk/instance.hpp"
#include "vk_test_device.hpp"

using batchsim::Error;
using batchsim::assets::PackedScene;
using batchsim::assets::SceneData;
using namespace batchsim::render;
namespace vk = batchsim::vk;

namespace {

using Fixture = batchsim::test::ValidatedDevice;

std::vector<std::uint8_t> gradient(std::uint32_t width, std::uint32_t height, std::uint8_t seed) {
    std::vector<std::uint8_t> rgba(std::size_t{width} * height * 4);
    for (std::size_t i = 0; i < rgba.size(); ++i)
        rgba[i] = static_cast<std::uint8_t>(i * 37 + seed);
    return rgba;
}

// A quad in two chunks; with textures, two materials each with its own mipmapped texture
// (13x7: 4 levels, 32x20: 6 levels), else one untextured material.
PackedScene make_scene(bool with_textures) {
    SceneData scene;
    scene.vertices = {{0, 0, 0, 0, 1, 0, 0, 0},
                      {1, 0, 0, 0, 1, 0, 1, 0},
                      {1, 0, 1, 0, 1, 0, 1, 1},
                      {0, 0.5f, 1, 0, 1, 0, 0, 1}};
    scene.indices = {0, 1, 2, 0, 2, 3};
    const std::uint32_t second = with_textures ? 1 : 0;
    scene.chunks = {{0, 0, 0, 0, 1, 0, 1, 3, 0, 0, 0, 0},
                    {0, 0, 0, 3, 1, 0.5f, 1, 3, second, 0, 0, 0}};
    scene.materials = {{1, 0.5f, 0.25f, 1, batchsim::gpu::kNoTexture, 0, 0, 0}};
    if (with_textures) {
        scene.materials = {{1, 0.5f, 0.25f, 1, 0, 0, 0, 0}, {0.1f, 0.2f, 0.3f, 0.4f, 1, 0, 0, 0}};
        scene.textures = {batchsim::assets::make_texture("a.png", 13, 7, gradient(13, 7, 1)),
                          batchsim::assets::make_texture("b.png", 32, 20, gradient(32, 20, 9))};
    }
    scene.bounds = {{0, 0, 0}, {1, 0.5f, 1}};
    scene.source = "synthetic/quad.glb";
    return PackedScene::from_bytes(batchsim::assets::pack_scene(scene));
}

template <typename T>
bool same_bytes(const std::vector<std::uint8_t>& gpu, std::span<const T> cpu) {
    return gpu.size() == cpu.size_bytes() && std::memcmp(gpu.data(), cpu.data(), gpu.size()) == 0;
}

}  // namespace

TEST_CASE_METHOD(Fixture, "a GPU scene holds the packed scene's bytes exactly", "[gpu_scene]") {
    const PackedScene packed = make_scene(true);
    REQUIRE(packed.texture_count() == 2);
    GpuScene scene = create_gpu_scene(device, packed, {.staging_bytes = 256});
    CHECK(scene.vertex_count == 4);
    CHECK(scene.index_count == 6);
    CHECK(scene.chunk_count == 2);
    CHECK(scene.material_count == 2);
    CHECK(scene.source == "synthetic/quad.glb");
    CHECK(scene.vertices.address != 0);
    CHECK(scene.sampler != VK_NULL_HANDLE);
    CHECK(same_bytes(vk::download_buffer(device, scene.vertices, 0, scene.vertices.size),
                     packed.vertices()));
    CHECK(same_bytes(vk::download_buffer(device, scene.indices, 0, scene.indices.size),
                     packed.indices()));
    CHECK(same_bytes(vk::download_buffer(device, scene.chunks, 0, scene.chunks.size),
                     packed.chunks()));
    CHECK(same_bytes(vk::download_buffer(device, scene.materials, 0, scene.materials.size),
                     packed.materials()));

    REQUIRE(scene.textures.size() == 2);
    for (std::size_t t = 0; t < 2; ++t) {
        const auto texture = packed.texture(t);
        const vk::Image& image = scene.textures[t];
        CHECK(image.format == VK_FORMAT_R8G8B8A8_SRGB);
        CHECK(image.extent.width == texture.width);
        CHECK(image.extent.height == texture.height);
        REQUIRE(image.mip_levels == texture.mip_count);
        std::size_t offset = 0;
        for (std::uint32_t level = 0; level < image.mip_levels; ++level) {
            INFO("texture " << t << " level " << level);
            const auto pixels = vk::download_image_level(device, image, level);
            CHECK(same_bytes(pixels, texture.pixels.subspan(offset, pixels.size())));
            offset += pixels.size();
        }
        CHECK(offset == texture.pixels.size());
    }
    const VkDeviceSize data = gpu_scene_data_bytes(packed);
    constexpr std::size_t kGeometry =
        4 * sizeof(batchsim::gpu::Vertex) + std::size_t{6 * 4 + 2 * 48 + 2 * 32};
    CHECK(data == kGeometry + packed.texture(0).pixels.size() + packed.texture(1).pixels.size());
    CHECK(scene.bytes() >= data);
    CHECK(scene.bytes() <=
          data + VkDeviceSize{6} * 65536);  // at most alignment slack per allocation
    destroy_gpu_scene(device, scene);
    CHECK(scene.vertices.handle == VK_NULL_HANDLE);
    CHECK(scene.textures.empty());
}

TEST_CASE_METHOD(Fixture, "a scene without textures needs no images", "[gpu_scene]") {
    const PackedScene packed = make_scene(false);
    GpuScene scene = create_gpu_scene(device, packed);
    CHECK(scene.textures.empty());
    CHECK(scene.material_count == 1);
    CHECK(same_bytes(vk::download_buffer(device, scene.indices, 0, scene.indices.size),
                     packed.indices()));
    CHECK(scene.bytes() >= gpu_scene_data_bytes(packed));
    destroy_gpu_scene(device, scene);
}

TEST_CASE_METHOD(Fixture, "a scene larger than free device memory fails before allocating",
                 "[gpu_scene]") {
    const PackedScene packed = make_scene(true);
    try {
        create_gpu_scene(device, packed, {.available_bytes = 1024});
        FAIL("expected Error(Unsupported)");
    } catch (const Error& error) {
        CHECK(error.kind() == Error::Kind::Unsupported);
        CHECK_THAT(error.what(), Catch::Contains("scene synthetic/quad.glb needs 0.0 MiB of device "
                                                 "memory; the device has 0.0 MiB free"));
    }
    // The real budget holds it.
    GpuScene scene = create_gpu_scene(device, packed);
    CHECK(scene.bytes() > 0);
    destroy_gpu_scene(device, scene);
}

TEST_CASE_METHOD(Fixture, "textures of one size share an array image, a layer each",
                 "[gpu_scene]") {
    SceneData data;
    data.vertices = {{0, 0, 0, 0, 1, 0, 0, 0}, {1, 0, 0, 0, 1, 0, 1, 0}, {1, 0, 1, 0, 1, 0, 1, 1}};
    data.indices = {0, 1, 2};
    data.chunks = {{0, 0, 0, 0, 1, 0, 1, 3, 0, 0, 0, 0}};
    data.materials = {{1, 1, 1, 1, 0, 0, 0, 0},
                      {1, 1, 1, 1, 1, 0, 0, 0},
                      {1, 1, 1, 1, 2, 0, 0, 0},
                      {1, 1, 1, 1, batchsim::gpu::kNoTexture, 0, 0, 0}};
    data.textures = {batchsim::assets::make_texture("a.png", 13, 7, gradient(13, 7, 1)),
                     batchsim::assets::make_texture("b.png", 32, 20, gradient(32, 20, 9)),
                     batchsim::assets::make_texture("c.png", 13, 7, gradient(13, 7, 5))};
    data.bounds = {{0, 0, 0}, {1, 0, 1}};
    data.source = "synthetic/groups.glb";
    const PackedScene packed = PackedScene::from_bytes(batchsim::assets::pack_scene(data));
    GpuScene scene = create_gpu_scene(device, packed, {.staging_bytes = 512});
    REQUIRE(scene.textures.size() == 2);
    CHECK(scene.textures[0].layers == 2);
    CHECK(scene.textures[1].layers == 1);
    CHECK(scene.textures[1].array_view);  // sampler2DArray even with one layer
    // (texture) -> (group slot, layer): a -> (0, 0), b -> (1, 0), c -> (0, 1).
    const auto bytes = vk::download_buffer(device, scene.materials, 0, scene.materials.size);
    std::vector<batchsim::gpu::Material> materials(4);
    std::memcpy(materials.data(), bytes.data(), bytes.size());
    const std::uint32_t none = batchsim::gpu::kNoTexture;
    CHECK(std::vector<std::uint32_t>{
              materials[0].base_color_texture, materials[1].base_color_texture,
              materials[2].base_color_texture,
              materials[3].base_color_texture} == std::vector<std::uint32_t>{0, 1, 0, none});
    CHECK(materials[2].base_color_layer == 1);
    for (const auto& [t, group, layer] : {std::tuple{0u, 0u, 0u}, {1u, 1u, 0u}, {2u, 0u, 1u}}) {
        const auto texture = packed.texture(t);
        std::size_t offset = 0;
        for (std::uint32_t level = 0; level < texture.mip_count; ++level) {
            INFO("texture " << t << " level " << level);
            const auto pixels =
                vk::download_image_level(device, scene.textures[group], level, layer);
            CHECK(same_bytes(pixels, texture.pixels.subspan(offset, pixels.size())));
            offset += pixels.size();
        }
    }
    destroy_gpu_scene(device, scene);
}
