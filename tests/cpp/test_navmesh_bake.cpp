#include <catch2/catch.hpp>

#include <cmath>

#include "core/check.hpp"
#include "nav/habitat_format.hpp"
#include "nav/nav_query.hpp"
#include "nav/navmesh_bake.hpp"
#include "nav_scenes.hpp"

using namespace batchsim;

TEST_CASE("default settings are habitat-sim's NavMeshSettings", "[navmesh_bake]") {
    const nav::NavMeshSettings s;
    CHECK(s.cell_size == 0.05f);
    CHECK(s.cell_height == 0.2f);
    CHECK(s.agent_height == 1.5f);
    CHECK(s.agent_radius == 0.1f);
    CHECK(s.agent_max_climb == 0.2f);
    CHECK(s.agent_max_slope == 45.0f);
    CHECK(s.region_min_size == 20.0f);
    CHECK(s.region_merge_size == 20.0f);
    CHECK(s.edge_max_len == 12.0f);
    CHECK(s.edge_max_error == 1.3f);
    CHECK(s.verts_per_poly == 6);
    CHECK(s.detail_sample_dist == 6.0f);
    CHECK(s.detail_sample_max_error == 1.0f);
    CHECK((s.filter_low_hanging_obstacles && s.filter_ledge_spans &&
           s.filter_walkable_low_height_spans));
}

TEST_CASE("a baked navmesh is a single-tile Habitat image with its settings", "[navmesh_bake]") {
    const test::Mesh room = test::floors({{0, 0, 10, 10}});
    nav::NavMeshSettings settings;
    settings.agent_radius = 0.3f;
    const auto bytes = nav::bake_navmesh(room.positions, room.indices, settings);
    const nav::NavMeshImage image = nav::parse_habitat_navmesh(bytes);
    REQUIRE(image.tiles.size() == 1);
    CHECK(image.params.maxTiles == 1);
    CHECK(image.settings.agent_radius == 0.3f);
    CHECK(image.params.orig[0] == 0.0f);
    CHECK(image.params.tileWidth == 10.0f);
    // The radius erodes the walkable region: 0.05 (ledge cell) + 0.3.
    nav::NavQuery query(nav::NavMesh::from_habitat_bytes(bytes));
    CHECK_FALSE(query.is_navigable({0.3f, 0, 5}));
    CHECK(query.is_navigable({0.4f, 0, 5}));
}

TEST_CASE("slopes steeper than agent_max_slope are not walkable", "[navmesh_bake]") {
    // Two 4 m ramps rising along x: 30 and 60 degrees.
    test::Mesh mesh;
    for (const auto& [z0, degrees] : {std::pair{0.0f, 30.0f}, std::pair{6.0f, 60.0f}}) {
        const float rise = 4 * std::tan(degrees * float(M_PI) / 180);
        const auto base = static_cast<std::uint32_t>(mesh.positions.size() / 3);
        mesh.positions.insert(mesh.positions.end(),
                              {0, 0, z0, 4, rise, z0, 4, rise, z0 + 4, 0, 0, z0 + 4});
        mesh.indices.insert(mesh.indices.end(),
                            {base, base + 2, base + 1, base, base + 3, base + 2});
    }
    nav::NavQuery query(test::bake(mesh));
    CHECK(query.mesh().island_count() == 1);
    CHECK(query.is_navigable({2, 2 * std::tan(float(M_PI) / 6), 2}));
    CHECK_FALSE(query.is_navigable({2, 2 * std::tan(float(M_PI) / 3), 8}, 0.5f));
}

TEST_CASE("bad geometry and settings are rejected", "[navmesh_bake]") {
    test::Mesh room = test::floors({{0, 0, 10, 10}});
    auto bake = [](const test::Mesh& m, const nav::NavMeshSettings& s = {}) {
        return nav::bake_navmesh(m.positions, m.indices, s);
    };
    test::Mesh nan = room;
    nan.positions[4] = NAN;
    CHECK_THROWS_WITH(bake(nan), Catch::Contains("not finite"));
    test::Mesh out_of_range = room;
    out_of_range.indices[0] = 99;
    CHECK_THROWS_WITH(bake(out_of_range), Catch::Contains("index 99 out of range"));
    CHECK_THROWS_WITH(bake(test::Mesh{}), Catch::Contains("3 indices per triangle"));
    test::Mesh degenerate;  // a zero-area scene: every triangle collapsed onto a line
    degenerate.positions = {0, 0, 0, 1, 0, 1, 2, 0, 2};
    degenerate.indices = {0, 1, 2};
    CHECK_THROWS_AS(bake(degenerate), Error);
    for (auto mutate : std::initializer_list<void (*)(nav::NavMeshSettings&)>{
             [](nav::NavMeshSettings& s) { s.cell_size = 0; },
             [](nav::NavMeshSettings& s) { s.agent_radius = -1; },
             [](nav::NavMeshSettings& s) { s.agent_max_slope = 90; },
             [](nav::NavMeshSettings& s) { s.verts_per_poly = 7; },
             [](nav::NavMeshSettings& s) { s.cell_height = NAN; }}) {
        nav::NavMeshSettings s;
        mutate(s);
        CHECK_THROWS_WITH(bake(room, s), Catch::Contains("NavMeshSettings."));
    }
}
