// Checks of env/memory_plan.cpp: the bytes a configuration needs and its refusals.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

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
