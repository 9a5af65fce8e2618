#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "asset_test_utils.hpp"
#include "assets/mesh_chunks.hpp"
#include "core/check.hpp"

namespace {

using batchsim::assets::build_chunks;
using batchsim::assets::MaterialMesh;
using batchsim::assets::SceneData;
using batchsim::assets::Vertex;
using Triangle = std::array<float, 9>;

// An n x n grid of unit quads at height y, two triangles each, with vertices NOT shared
// (6 per quad) so duplicate merging has work to do.
MaterialMesh grid(std::uint32_t material, int n, float y) {
    MaterialMesh mesh;
    mesh.material = material;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            const auto x = static_cast<float>(i), z = static_cast<float>(j);
            for (const auto& [dx, dz] : {std::pair{0, 0}, {0, 1}, {1, 1}, {0, 0}, {1, 1}, {1, 0}}) {
                mesh.indices.push_back(static_cast<std::uint32_t>(mesh.vertices.size()));
                mesh.vertices.push_back(
                    {x + static_cast<float>(dx), y, z + static_cast<float>(dz), 0, 1, 0, 0, 0});
            }
        }
    }
    return mesh;
}

// Triangles as position triples, rotated so the smallest corner comes first (winding kept).
std::multiset<Triangle> triangles(const std::vector<Vertex>& vertices,
                                  const std::vector<std::uint32_t>& indices) {
    std::multiset<Triangle> out;
    for (std::size_t t = 0; t < indices.size(); t += 3) {
        std::array<std::array<float, 3>, 3> corners{};
        for (std::size_t k = 0; k < 3; ++k) {
            const Vertex& v = vertices[indices[t + k]];
            corners[k] = {v.px, v.py, v.pz};
        }
        const auto first = std::min_element(corners.begin(), corners.end()) - corners.begin();
        std::rotate(corners.begin(), corners.begin() + first, corners.end());
        Triangle flat{};
        for (std::size_t k = 0; k < 9; ++k) flat[k] = corners[k / 3][k % 3];
        out.insert(flat);
    }
    return out;
}

}  // namespace

TEST_CASE("chunks cover every triangle once, sorted by material, within the limit",
          "[mesh_chunks]") {
    const MaterialMesh a = grid(1, 20, 0.0f), b = grid(0, 7, 3.0f);
    auto expected = triangles(a.vertices, a.indices);
    const auto tb = triangles(b.vertices, b.indices);
    expected.insert(tb.begin(), tb.end());
    SceneData scene;
    scene.materials.resize(2, {1, 1, 1, 1, batchsim::gpu::kNoTexture, 0, 0, 0});
    build_chunks({a, b}, 37, scene);
    batchsim::test::check_scene_invariants(scene, 37);
    CHECK(triangles(scene.vertices, scene.indices) == expected);
    CHECK(scene.triangle_count() == std::size_t{2} * (20 * 20 + 7 * 7));
    CHECK(scene.vertices.size() == 21 * 21 + 8 * 8);  // duplicates merged
    CHECK(scene.chunks.front().material == 0);
    CHECK(scene.chunks.back().material == 1);
    std::map<std::uint32_t, std::size_t> per_material;
    for (const auto& chunk : scene.chunks) per_material[chunk.material] += chunk.index_count / 3;
    CHECK(per_material == std::map<std::uint32_t, std::size_t>{{0, 98}, {1, 800}});
    CHECK(scene.chunks.size() == (98 + 36) / 37 + (800 + 36) / 37);
    CHECK(scene.bounds.min == std::array<float, 3>{0, 0, 0});
    CHECK(scene.bounds.max == std::array<float, 3>{20, 3, 20});
}

TEST_CASE("chunks are spatially compact", "[mesh_chunks]") {
    SceneData scene;
    scene.materials.resize(1, {1, 1, 1, 1, batchsim::gpu::kNoTexture, 0, 0, 0});
    build_chunks({grid(0, 64, 0.0f)}, 512, scene);  // 8192 triangles in 16 chunks
    REQUIRE(scene.chunks.size() == 16);
    for (const auto& chunk : scene.chunks) {
        // A Morton-ordered 1/16 of the grid spans about a quarter of each side; a chunk
        // of scattered triangles would span the whole 64 x 64.
        CHECK((chunk.max_x - chunk.min_x) * (chunk.max_z - chunk.min_z) <= 64.0f * 64.0f / 4);
    }
}

TEST_CASE("build_chunks rejects bad input", "[mesh_chunks]") {
    SceneData scene;
    CHECK_THROWS_AS(build_chunks({grid(0, 2, 0.0f)}, 0, scene), batchsim::Error);
    MaterialMesh broken = grid(0, 1, 0.0f);
    broken.indices[4] = 99;
    CHECK_THROWS_AS(build_chunks({broken}, 16, scene), batchsim::Error);
    broken.indices.pop_back();
    CHECK_THROWS_AS(build_chunks({broken}, 16, scene), batchsim::Error);
    CHECK(batchsim::assets::compute_bounds({}).max == std::array<float, 3>{0, 0, 0});
}
