#include "render/batch_renderer.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "assets/packed_scene.hpp"
#include "assets/packed_scene_writer.hpp"
#include "core/check.hpp"
#include "vk/instance.hpp"

using namespace batchsim;
using render::BatchRenderer;

namespace {

std::shared_ptr<device::GpuContext> cpu_context() {
    return std::make_shared<device::GpuContext>(
        device::GpuContext::Config{.validation = true, .export_target = device::ExportTarget::Cpu});
}

// A 4 x 4 m wall in the plane z = -3, facing +z, one untextured red material.
assets::PackedScene wall() {
    assets::SceneData scene;
    scene.vertices = {{-2, -2, -3, 0, 0, 1, 0, 1},
                      {2, -2, -3, 0, 0, 1, 1, 1},
                      {2, 2, -3, 0, 0, 1, 1, 0},
                      {-2, 2, -3, 0, 0, 1, 0, 0}};
    scene.indices = {0, 1, 2, 0, 2, 3};
    scene.chunks = {{-2, -2, -3, 0, 2, 2, -3, 6, 0, 0, 0, 0}};
    scene.materials = {{1.0f, 0.0f, 0.0f, 1.0f, gpu::kNoTexture, 0, 0, 0}};
    return assets::PackedScene::from_bytes(assets::pack_scene(scene));
}

gpu::CameraPose pose_at(float x, float y, float z, float yaw, std::uint32_t place) {
    return {x, y, z, place, 0.0f, std::sin(yaw / 2), 0.0f, std::cos(yaw / 2)};
}

std::vector<float> floats(const device::PersistentTensor& t) {
    std::vector<float> out(static_cast<std::size_t>(t.numel()));
    std::memcpy(out.data(), reinterpret_cast<const void*>(t.data_ptr()), out.size() * 4);
    return out;
}

}  // namespace

TEST_CASE("BatchRenderer: a wall at 3 m, seen straight and from the side", "[batch_renderer]") {
    const auto backend = GENERATE(render::Backend::Raster, render::Backend::Compute);
    CAPTURE(render::backend_name(backend));
    const std::uint64_t messages = vk::validation_message_total();
    {
        auto context = cpu_context();
        BatchRenderer renderer(
            context, {.views = 3, .width = 16, .height = 12, .places = 2, .backend = backend});
        CHECK(renderer.config().backend == backend);
        const auto scene = wall();
        renderer.set_scene(1, &scene);
        CHECK(renderer.scene_bytes(1) > 0);
        CHECK(renderer.scene_bytes(0) == 0);
        const std::vector<gpu::CameraPose> poses{pose_at(0, 0, 0, 0, 1),  // facing the wall
                                                 pose_at(0, 0, 0, 3.14159265f, 1),  // facing away
                                                 pose_at(0, 0, 0, 0, 0)};  // an empty place
        renderer.render(poses, 0);
        const auto depth = floats(*renderer.depth());
        const std::size_t pixels = std::size_t{16} * 12;
        // hfov 90: the wall (4 m wide at 3 m) covers the middle 2/3 of the columns.
        CHECK(depth[6 * 16 + 8] == Approx(3.0f).margin(1e-4));
        CHECK(depth[6 * 16 + 0] == 0.0f);
        for (std::size_t i = pixels; i < 3 * pixels; ++i) REQUIRE(depth[i] == 0.0f);
        const auto* rgb = reinterpret_cast<const std::uint8_t*>(renderer.rgb()->data_ptr());
        const std::size_t centre = std::size_t{6 * 16 + 8} * 4;
        CHECK(rgb[centre] == 255);
        CHECK(rgb[centre + 1] == 0);
        CHECK(rgb[centre + 3] == 255);
        CHECK(rgb[pixels * 4 + centre] == 0);  // view 1 sees nothing: black
    }
    CHECK(vk::validation_message_total() == messages);
}

TEST_CASE("BatchRenderer: bad configurations and poses are rejected", "[batch_renderer]") {
    auto context = cpu_context();
    CHECK_THROWS_WITH(BatchRenderer(context, {.views = 0}), Catch::Contains("views"));
    CHECK_THROWS_WITH(BatchRenderer(context, {.hfov_degrees = 180}), Catch::Contains("hfov"));
    BatchRenderer renderer(context, {.views = 2, .width = 8, .height = 8, .places = 1});
    const std::vector<gpu::CameraPose> one{pose_at(0, 0, 0, 0, 0)};
    CHECK_THROWS_WITH(renderer.render(one, 0), Catch::Contains("expected 2 camera poses"));
    const std::vector<gpu::CameraPose> bad{pose_at(0, 0, 0, 0, 0), pose_at(0, 0, 0, 0, 5)};
    CHECK_THROWS_WITH(renderer.render(bad, 0), Catch::Contains("names resident place 5"));
}

TEST_CASE("BatchRenderer: Auto resolves to the device's backend", "[batch_renderer]") {
    auto context = cpu_context();
    const BatchRenderer renderer(context,
                                 {.views = 1, .places = 1, .backend = render::Backend::Auto});
    CHECK(renderer.config().backend == render::choose_backend(context->device()));
    CHECK(renderer.config().backend != render::Backend::Auto);
    CHECK(std::string(render::backend_name(render::Backend::Compute)) == "compute");
}

TEST_CASE("BatchRenderer: commands are re-recorded when the scenes change", "[batch_renderer]") {
    const auto backend = GENERATE(render::Backend::Raster, render::Backend::Compute);
    CAPTURE(render::backend_name(backend));
    const std::uint64_t messages = vk::validation_message_total();
    {
        auto context = cpu_context();
        BatchRenderer renderer(context, {.views = 3,
                                         .width = 16,
                                         .height = 12,
                                         .places = 1,
                                         .batches = 3,  // the naive mode
                                         .rgb = false,
                                         .backend = backend});
        CHECK(renderer.rgb() == nullptr);
        const auto scene = wall();
        const std::vector<gpu::CameraPose> poses(3, pose_at(0, 0, 0, 0, 0));
        const std::size_t centre = std::size_t{6} * 16 + 8, pixels = std::size_t{16} * 12;
        auto centre_depths = [&] {
            renderer.render(poses, 0);
            const auto depth = floats(*renderer.depth());
            return std::vector<float>{depth[centre], depth[pixels + centre],
                                      depth[2 * pixels + centre]};
        };
        CHECK(centre_depths() == std::vector<float>(3, 0.0f));  // nothing resident
        renderer.set_scene(0, &scene);
        for (float d : centre_depths()) CHECK(d == Approx(3.0f).margin(1e-4));
        renderer.set_scene(0, nullptr);
        CHECK(centre_depths() == std::vector<float>(3, 0.0f));
        CHECK(renderer.batch_views(2).first == 2);
        CHECK_THROWS_WITH(renderer.submit(0, poses, 0), Catch::Contains("batch 0 has 1 views"));
    }
    CHECK(vk::validation_message_total() == messages);
}
