// Writes the seed corpus of fuzz_packed_scene: small valid packed scenes (1 to 5 KB), each
// after the harness's selector byte (0 verifies checksums, 1 skips them), plain (format 4)
// and deflated (format 5, *_deflated.*: the fuzzer then mutates zlib streams and their
// declared sizes). The checked-in plain seeds were written in format 3 by an older build;
// running this again rewrites them in format 4.
// Usage: make_seeds OUT_DIR (`make fuzz-seeds`).
#include <array>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <span>
#include <vector>

#include "assets/packed_scene.hpp"
#include "assets/packed_scene_writer.hpp"
#include "core/file_io.hpp"

namespace {

using batchsim::assets::SceneData;

// One triangle, one untextured material, no navmesh.
SceneData triangle() {
    SceneData scene;
    scene.vertices = {{0, 0, 0, 0, 1, 0, 0, 0}, {1, 0, 0, 0, 1, 0, 1, 0}, {0, 0, 1, 0, 1, 0, 0, 1}};
    scene.indices = {0, 1, 2};
    scene.chunks = {{0, 0, 0, 0, 1, 0, 1, 3, 0, 0, 0, 0}};
    scene.materials = {{0.8f, 0.8f, 0.8f, 1, batchsim::gpu::kNoTexture, 0, 0, 0}};
    scene.bounds = {{0, 0, 0}, {1, 0, 1}};
    scene.source = "seed/triangle.glb";
    return scene;
}

// A quad in two chunks, two materials, two textures with mips, a vertex colour and a navmesh
// blob.
SceneData textured_quad() {
    SceneData scene = triangle();
    scene.vertices.push_back({1, 0.5f, 1, 0, 1, 0, 1, 1, 0x80ff4020u});  // a vertex colour
    scene.indices = {0, 1, 2, 1, 3, 2};
    scene.chunks = {{0, 0, 0, 0, 1, 0, 1, 3, 0, 0, 0, 0}, {0, 0, 0, 3, 1, 0.5f, 1, 3, 1, 0, 0, 0}};
    scene.materials = {{1, 1, 1, 1, 0, 0, 0, 0}, {1, 0.5f, 0.5f, 1, 1, 0, 0, 0}};
    scene.textures = {{"floor.png", 4, 4, 3, std::vector<std::uint8_t>(84, 0x7f)},
                      {"*0", 2, 1, 2, std::vector<std::uint8_t>(12, 0xc0)}};
    scene.navmesh = {'M', 'S', 'E', 'T', 1, 0, 0, 0};
    scene.bounds = {{0, 0, 0}, {1, 0.5f, 1}};
    scene.source = "seed/textured_quad.glb";
    return scene;
}

// A 4 x 4 quad floor (32 triangles): its BVH has inner nodes, unlike the one-leaf seeds.
SceneData grid() {
    SceneData scene = triangle();
    scene.vertices.clear();
    scene.indices.clear();
    for (int z = 0; z <= 4; ++z) {
        for (int x = 0; x <= 4; ++x)
            scene.vertices.push_back({float(x), 0, float(z), 0, 1, 0, 0.25f * x, 0.25f * z});
    }
    for (std::uint32_t z = 0; z < 4; ++z) {
        for (std::uint32_t x = 0; x < 4; ++x) {
            const std::uint32_t a = z * 5 + x, b = a + 1, c = a + 5, d = c + 1;
            scene.indices.insert(scene.indices.end(), {a, c, b, b, c, d});
        }
    }
    scene.chunks = {{0, 0, 0, 0, 4, 0, 4, 96, 0, 0, 0, 0}};
    scene.bounds = {{0, 0, 0}, {4, 0, 4}};
    scene.source = "seed/grid.glb";
    return scene;
}

void write_seed(const std::filesystem::path& path, const SceneData& scene, std::uint8_t selector,
                const batchsim::assets::PackOptions& options = {}) {
    const std::vector<std::uint8_t> file = batchsim::assets::pack_scene(scene, options);
    const std::array<std::span<const std::uint8_t>, 2> parts{std::span{&selector, 1},
                                                             std::span{file}};
    batchsim::write_file_atomically(path, parts);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
        return 2;
    }
    try {
        const std::filesystem::path dir = argv[1];
        std::filesystem::create_directories(dir);
        write_seed(dir / "triangle.verify", triangle(), 0);
        write_seed(dir / "textured_quad.verify", textured_quad(), 0);
        write_seed(dir / "textured_quad.skip", textured_quad(), 1);
        write_seed(dir / "grid.verify", grid(), 0);
        write_seed(dir / "grid.skip", grid(), 1);
        const batchsim::assets::PackOptions deflate{.deflate = true};
        write_seed(dir / "textured_quad_deflated.verify", textured_quad(), 0, deflate);
        write_seed(dir / "grid_deflated.skip", grid(), 1, deflate);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "make_seeds: %s\n", error.what());
        return 1;
    }
    return 0;
}
