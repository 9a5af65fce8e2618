// Big meshes import in time linear in their size (scans have millions of triangles): a
// generated ~200k-triangle GLB here; `batchsim_tests "[.import_bench]"` with
// BATCHSIM_IMPORT_BENCH_TRIANGLES=2000000 times a scan-sized one by hand.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>

#include "asset_test_utils.hpp"
#include "assets/bvh.hpp"
#include "assets/importer.hpp"
#include "gltf_writer.hpp"

namespace {

using batchsim::test::GltfWriter;

// A side x side grid of quads (2 side^2 triangles) on a gently curved sheet, one material:
// a stand-in for one big scanned mesh.
std::string grid_glb(std::uint32_t side) {
    std::vector<float> xyz, uv;
    for (std::uint32_t z = 0; z <= side; ++z) {
        for (std::uint32_t x = 0; x <= side; ++x) {
            const float fx = float(x), fz = float(z);
            xyz.insert(xyz.end(), {fx * 0.01f, 0.2f * std::sin(fx * 0.37f) * std::cos(fz * 0.21f),
                                   fz * 0.01f});
            uv.insert(uv.end(), {fx / float(side), fz / float(side)});
        }
    }
    std::vector<std::uint32_t> indices;
    indices.reserve(std::size_t{side} * side * 6);
    for (std::uint32_t z = 0; z < side; ++z) {
        for (std::uint32_t x = 0; x < side; ++x) {
            const std::uint32_t a = z * (side + 1) + x, b = a + 1, c = a + side + 1, d = c + 1;
            indices.insert(indices.end(), {a, c, b, b, c, d});
        }
    }
    GltfWriter w;
    const std::size_t p = w.positions(xyz);
    const std::size_t t = w.accessor(uv, batchsim::test::kFloat, "VEC2");
    const std::size_t i = w.accessor(indices, batchsim::test::kUnsignedInt, "SCALAR");
    w.meshes = {R"({"primitives":[{"attributes":{"POSITION":)" + std::to_string(p) +
                R"(,"TEXCOORD_0":)" + std::to_string(t) + R"(},"indices":)" + std::to_string(i) +
                "}]}"};
    w.nodes = {R"({"mesh":0})"};
    return w.glb();
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Seconds import_model takes on a generated grid of about `triangles` triangles; with
// `scene`, the scene is kept there.
double import_seconds(std::size_t triangles, batchsim::assets::SceneData* scene = nullptr) {
    const auto side = static_cast<std::uint32_t>(std::sqrt(double(triangles) / 2));
    batchsim::test::ScratchDir dir;
    const auto path = dir.write("grid.glb", grid_glb(side));
    const auto start = std::chrono::steady_clock::now();
    batchsim::assets::SceneData imported = batchsim::assets::import_model(path, {});
    const double took = seconds_since(start);
    REQUIRE(imported.triangle_count() == std::size_t{2} * side * side);
    if (scene) *scene = std::move(imported);
    return took;
}

}  // namespace

TEST_CASE("a 200k-triangle mesh imports in time linear in its size", "[importer][scale]") {
    const double small = import_seconds(25'000), big = import_seconds(200'000);
    INFO("25k triangles: " << small << " s, 200k: " << big << " s");
    // 8x the triangles: ~8-10x the time when linear (n log n sorts), 64x if quadratic.
    CHECK(big < 24 * small + 0.5);
    CHECK(big < 30.0);  // a bound that holds under sanitizers, too
}

TEST_CASE("import time of a scan-sized mesh (by hand)", "[.import_bench]") {
    const char* wanted = std::getenv("BATCHSIM_IMPORT_BENCH_TRIANGLES");
    const std::size_t triangles = wanted ? std::strtoull(wanted, nullptr, 10) : 2'000'000;
    batchsim::assets::SceneData scene;
    const double seconds = import_seconds(triangles, &scene);
    const auto start = std::chrono::steady_clock::now();
    const auto bvh = batchsim::assets::build_bvh(scene.vertices, scene.indices, scene.chunks);
    WARN("imported " << scene.triangle_count() << " triangles in " << seconds << " s; their BVH ("
                     << bvh.nodes.size() << " nodes) took " << seconds_since(start) << " s");
}
