#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "nav/islands.hpp"
#include "nav_scenes.hpp"

using namespace batchsim;

TEST_CASE("islands are the connected floors", "[islands]") {
    // Three rooms; the first two share an edge, the third stands apart.
    const auto mesh = test::bake(test::floors({{0, 0, 4, 4}, {4, 0, 8, 4}, {10, 0, 14, 4}}));
    const nav::Islands& islands = mesh->islands();
    REQUIRE(islands.count() == 2);
    const float areas[] = {islands.summary(0).area, islands.summary(1).area};
    CHECK(std::max(areas[0], areas[1]) == Approx(7.7 * 3.7).epsilon(0.01));
    CHECK(std::min(areas[0], areas[1]) == Approx(3.7 * 3.7).epsilon(0.01));
    CHECK(islands.total_area() == Approx(areas[0] + areas[1]));
    CHECK(islands.island_of(0) == -1);
}

TEST_CASE("area-weighted polygon choice covers [0, 1) in proportion", "[islands]") {
    const auto mesh = test::bake(test::floors({{0, 0, 10, 10}, {0, 0, 3, 12}}));
    const nav::Islands& islands = mesh->islands();
    const dtNavMesh& detour = mesh->detour();
    // Walking u across [0, 1) visits polygons with frequency = their share of the xz area.
    std::map<dtPolyRef, int> hits;
    constexpr int kSteps = 100000;
    for (int i = 0; i < kSteps; ++i) hits[islands.pick_polygon(-1, (float(i) + 0.5f) / kSteps)]++;
    double total_xz = 0;
    for (const auto& [ref, count] : hits) {
        const dtMeshTile* tile = nullptr;
        const dtPoly* poly = nullptr;
        detour.getTileAndPolyByRefUnsafe(ref, &tile, &poly);
        total_xz += nav::polygon_area_xz(*tile, *poly);
    }
    for (const auto& [ref, count] : hits) {
        const dtMeshTile* tile = nullptr;
        const dtPoly* poly = nullptr;
        detour.getTileAndPolyByRefUnsafe(ref, &tile, &poly);
        CHECK(double(count) / kSteps ==
              Approx(nav::polygon_area_xz(*tile, *poly) / total_xz).margin(1e-3));
    }
    CHECK(islands.pick_polygon(0, 0.9999999f) != 0);
}
