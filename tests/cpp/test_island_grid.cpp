// IslandGrid: whenever it settles a box, Detour's polygon query over that box returns only
// polygons of the island asked about, at least one, and findNearestPoly answers one of them.
#include <catch2/catch.hpp>

#include <DetourNavMeshQuery.h>

#include "nav/island_grid.hpp"
#include "nav/islands.hpp"
#include "nav_scenes.hpp"

using namespace batchsim;

TEST_CASE("the island grid settles only boxes whose polygons all lie on one island",
          "[island_grid]") {
    // Three islands: gaps of 1 m and 3 m; a box 4 m wide reaches across the first only.
    const auto mesh = test::bake(test::floors({{0, 0, 4, 4}, {5, 0, 9, 4}, {12, 0, 16, 4}}));
    const nav::Islands& islands = mesh->islands();
    REQUIRE(islands.count() == 3);
    dtNavMeshQuery query;
    REQUIRE(dtStatusSucceed(query.init(&mesh->detour(), 2048)));
    dtQueryFilter filter;
    filter.setIncludeFlags(nav::kPolyFlagWalk);
    filter.setExcludeFlags(nav::kPolyFlagDisabled);
    const float extents[3] = {2, 4, 2};
    nav::IslandGrid grid;
    int settled = 0, unsettled = 0;
    for (float x = -1; x <= 17; x += 0.0625f) {
        for (float z = -1; z <= 5; z += 0.25f) {
            const nav::Vec3 point{x, 0.3f, z};
            dtPolyRef nearest = 0;
            float snapped[3];
            query.findNearestPoly(point.data(), extents, &filter, &nearest, snapped);
            if (nearest == 0) continue;
            const int island = islands.island_of(nearest);
            // Another island's polygon inside the box: never settled for this island.
            for (int other = 0; other < islands.count(); ++other)
                if (other != island)
                    REQUIRE_FALSE(
                        grid.settles(query, filter, islands, nearest, point, extents, other));
            if (!grid.settles(query, filter, islands, nearest, point, extents, island)) {
                ++unsettled;
                continue;
            }
            ++settled;
            dtPolyRef candidates[256];
            int count = 0;
            query.queryPolygons(point.data(), extents, &filter, candidates, &count, 256);
            REQUIRE(count > 0);
            for (int i = 0; i < count; ++i) REQUIRE(islands.island_of(candidates[i]) == island);
        }
    }
    // Within about 2.25 m of x = 4 and 5 (the 1 m gap) boxes see two islands.
    CHECK(settled > 1000);
    CHECK(unsettled > 500);
    CHECK_FALSE(grid.settles(query, filter, islands, 0, {2, 0.3f, 2}, extents, 0));
}
