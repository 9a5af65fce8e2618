#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "core/check.hpp"
#include "core/file_io.hpp"
#include "nav/navmesh.hpp"
#include "nav_scenes.hpp"

using namespace batchsim;
namespace fs = std::filesystem;

TEST_CASE("NavMesh summarises its mesh", "[navmesh]") {
    const auto mesh = test::bake(test::floors({{0, 0, 10, 10}}));
    CHECK(mesh->island_count() == 1);
    CHECK(mesh->polygon_count() >= 1);
    CHECK(mesh->navigable_area() == Approx(9.7 * 9.7).epsilon(0.005));
    const auto [lo, hi] = mesh->bounds();  // the tile bounds: the input's xz extent
    CHECK(lo[0] == 0.0f);
    CHECK(lo[2] == 0.0f);
    CHECK(hi[0] == 10.0f);
    CHECK(hi[2] == 10.0f);
    CHECK(mesh->settings().cell_size == 0.05f);
}

TEST_CASE("NavMesh save and load round-trip the Habitat bytes", "[navmesh]") {
    const auto mesh = test::bake(test::floors({{0, 0, 10, 10}}));
    const fs::path path =
        fs::temp_directory_path() /
        ("batchsim_navmesh_" + std::to_string(std::random_device{}()) + ".navmesh");
    mesh->save(path);
    CHECK(read_file(path) == mesh->habitat_bytes());
    const auto loaded = nav::NavMesh::load(path);
    CHECK(loaded->habitat_bytes() == mesh->habitat_bytes());
    CHECK(loaded->navigable_area() == mesh->navigable_area());
    fs::remove(path);
    try {
        (void)nav::NavMesh::load(path);
        FAIL("loading a missing file must throw");
    } catch (const Error& error) {
        CHECK(error.kind() == Error::Kind::FileNotFound);
    }
}

TEST_CASE("load errors name the file", "[navmesh]") {
    const fs::path path = fs::temp_directory_path() /
                          ("batchsim_bad_" + std::to_string(std::random_device{}()) + ".navmesh");
    const std::vector<std::uint8_t> junk(200, 7);
    const std::span<const std::uint8_t> parts[] = {junk};
    write_file_atomically(path, parts);
    CHECK_THROWS_WITH(nav::NavMesh::load(path),
                      Catch::Contains(path.string()) && Catch::Contains("bad magic"));
    fs::remove(path);
}
