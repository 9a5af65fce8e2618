// Checks of nav/floors.cpp: storeys found at their heights, small platforms and single
// floors handled.
#include <catch2/catch.hpp>

#include "nav/floors.hpp"
#include "nav_scenes.hpp"

using namespace batchsim;

TEST_CASE("floors: one height per storey, none for small platforms", "[floors]") {
    SECTION("a single floor") {
        const auto floors = nav::floor_heights(*test::bake(test::floors({{0, 0, 8, 6}})));
        REQUIRE(floors.size() == 1);
        CHECK(floors[0] == Approx(0.0f).margin(0.25f));  // Recast's cell height at most
    }
    SECTION("two storeys and a landing too small to be a floor (3% of the area)") {
        const auto mesh = test::bake(
            test::floors({{0, 0, 8, 6, 0.0f}, {0, 0, 8, 6, 3.0f}, {10, 0, 12, 2, 1.5f}}));
        const auto floors = nav::floor_heights(*mesh);
        REQUIRE(floors.size() == 2);
        CHECK(floors[0] == Approx(0.0f).margin(0.25f));
        CHECK(floors[1] == Approx(3.0f).margin(0.25f));
        nav::FloorOptions all;  // every level counts, 1 m apart: the landing is one more
        all.min_area_share = 0.0f;
        all.min_separation = 1.0f;
        CHECK(nav::floor_heights(*mesh, all).size() == 3);
    }
    SECTION("levels closer than the separation are one floor") {
        const auto mesh = test::bake(test::floors({{0, 0, 8, 6, 0.0f}, {10, 0, 18, 6, 0.6f}}));
        CHECK(nav::floor_heights(*mesh).size() == 1);
        nav::FloorOptions close;
        close.min_separation = 0.5f;
        CHECK(nav::floor_heights(*mesh, close).size() == 2);
    }
}
