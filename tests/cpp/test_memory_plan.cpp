// Checks of env/memory_plan.cpp: the bytes a configuration needs and its refusals.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <vector>

#include "assets/packed_scene.hpp"
#include "assets/packed_scene_writer.hpp"
#include "core/check.hpp"
#include "env/memory_plan.hpp"

using namespace batchsim;
using namespace batchsim::env;

namespace {

constexpr std::uint64_t kPose = sizeof(gpu::CameraPose);
constexpr std::uint64_t kPixels = std::uint64_t{64} * 64;  // depth_64()'s views
const std::vector<std::uint64_t> kScenes{100, 300, 200};

sim::SimConfig sim_config(int num_envs, int scenes_resident) {
    sim::SimConfig c;
    c.num_envs = num_envs;
    c.scenes_resident = scenes_resident;
    return c;
}

RenderOptions depth_64() {
    RenderOptions r;
    r.width = r.height = 64;
    r.depth = true;
    return r;
}

}  // namespace

TEST_CASE("estimate_memory: outputs per view, two scene places per slot", "[memory_plan]") {
    const MemoryNeeds needs =
        estimate_memory(sim_config(10, 1), depth_64(), render::Backend::Compute, true, kScenes);
    CHECK(needs.device_per_env == kPixels * 4 + 2 * kPose);
    CHECK(needs.scene_bytes == 300 + 200);  // the two largest files
    CHECK(needs.device_fixed == 500);
    CHECK(needs.host_per_env == kPixels * 4);  // CPU export: the outputs are host memory
    CHECK(needs.host_fixed == 500 + 300);      // plus one file's upload staging
}

TEST_CASE("estimate_memory: rgb, final views and raster targets add up", "[memory_plan]") {
    RenderOptions r = depth_64();
    r.rgb = true;
    r.final_views = true;
    const MemoryNeeds needs =
        estimate_memory(sim_config(10, 4), r, render::Backend::Raster, false, kScenes);
    // Outputs twice (final views), z-buffer + depth + colour targets, poses.
    CHECK(needs.device_per_env == 2 * kPixels * 8 + kPixels * 12 + 2 * kPose);
    CHECK(needs.host_per_env == 0);               // CUDA export: nothing on the host per env
    CHECK(needs.scene_bytes == 100 + 300 + 200);  // K = 3 scenes at most
}

TEST_CASE("check_fits: refuses with the numbers and the largest N", "[memory_plan]") {
    const MemoryNeeds needs =
        estimate_memory(sim_config(10, 1), depth_64(), render::Backend::Compute, false, kScenes);
    const std::uint64_t exact = needs.device_fixed + 10 * needs.device_per_env;
    CHECK_NOTHROW(check_fits(needs, {exact, 0}, 10, 1));
    try {
        check_fits(needs, {exact - 1, 0}, 10, 1);
        FAIL("expected a refusal");
    } catch (const Error& error) {
        CHECK(error.kind() == Error::Kind::Unsupported);
        CHECK_THAT(error.what(), Catch::Contains("does not fit in device memory: num_envs=10"));
        CHECK_THAT(error.what(), Catch::Contains("16448 bytes each"));
        CHECK_THAT(error.what(), Catch::Contains("the largest num_envs that fits is 9"));
    }
}

TEST_CASE("check_fits: scenes that leave no room ask for fewer resident", "[memory_plan]") {
    const MemoryNeeds needs =
        estimate_memory(sim_config(10, 1), depth_64(), render::Backend::Compute, true, kScenes);
    CHECK_THROWS_WITH(check_fits(needs, {400, 0}, 10, 1),
                      Catch::Contains("leave no room: lower scenes_resident"));
    // Host memory is checked too, with its own numbers.
    CHECK_THROWS_WITH(check_fits(needs, {1u << 30, 900}, 10, 1),
                      Catch::Contains("does not fit in host memory") &&
                          Catch::Contains("the largest num_envs that fits is 0"));
}

TEST_CASE("scene_sizes: a compressed scene counts at its loaded size", "[memory_plan]") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "batchsim_test_memory_plan";
    fs::remove_all(dir);
    fs::create_directories(dir);
    assets::SceneData scene;  // a floor of 2,048 triangles: its sections deflate
    for (std::uint32_t z = 0; z <= 32; ++z) {
        for (std::uint32_t x = 0; x <= 32; ++x)
            scene.vertices.push_back({float(x), 0, float(z), 0, 1, 0, 0, 0});
    }
    for (std::uint32_t z = 0; z < 32; ++z) {
        for (std::uint32_t x = 0; x < 32; ++x) {
            const std::uint32_t a = z * 33 + x, b = a + 1, c = a + 33, d = c + 1;
            scene.indices.insert(scene.indices.end(), {a, c, b, b, c, d});
        }
    }
    scene.chunks = {{0, 0, 0, 0, 32, 0, 32, 6144, 0, 0, 0, 0}};
    scene.materials = {{1, 1, 1, 1, gpu::kNoTexture, 0, 0, 0}};
    scene.bounds = {{0, 0, 0}, {32, 0, 32}};
    assets::write_packed_scene(dir / "packed.bsscene", scene, {.deflate = true});
    assets::write_packed_scene(dir / "plain.bsscene", scene);
    const std::vector<fs::path> paths{dir / "packed.bsscene", dir / "plain.bsscene",
                                      dir / "missing.bsscene"};
    const auto sizes = scene_sizes(paths);
    const auto loaded = assets::PackedScene::load(paths[0]).resident_bytes();
    CHECK(sizes == std::vector<std::uint64_t>{loaded, fs::file_size(paths[1]), 0});
    CHECK(fs::file_size(paths[0]) * 2 < loaded);  // the file alone would plan half of it
}
