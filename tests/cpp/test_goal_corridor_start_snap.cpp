// StartSnap, the shortcut behind GoalCorridor's start snapping, and nearest_polygon, try_step's
// island test: they must answer as Detour's findNearestPoly does, on probes on, beside and
// above the polygons of the corridor tests' scenes (goal_corridor_scenes.hpp).
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>

#include <DetourNavMesh.h>
#include <DetourNavMeshQuery.h>

#include "core/random.hpp"
#include "goal_corridor_scenes.hpp"
#include "nav/islands.hpp"
#include "nav/nav_query.hpp"
#include "nav/nearest_poly.hpp"
#include "nav/start_snap.hpp"

using namespace batchsim;
using namespace batchsim::test::corridor;
using nav::Vec3;

namespace {

// A point near `point`'s polygon: on it, on one of its edges, just off an edge (agents slide
// along walls), or above or below it.
Vec3 probe(const dtNavMesh& mesh, dtPolyRef ref, const Vec3& point, Rng& rng, int kind) {
    const dtMeshTile* tile = nullptr;
    const dtPoly* poly = nullptr;
    mesh.getTileAndPolyByRefUnsafe(ref, &tile, &poly);
    const int k = int(rng.uniform() * float(poly->vertCount));
    const float* a = nav::polygon_corner(*tile, *poly, k);
    const float* b = nav::polygon_corner(*tile, *poly, (k + 1) % poly->vertCount);
    const float t = rng.uniform();
    const Vec3 on_edge{a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t,
                       a[2] + (b[2] - a[2]) * t};
    const float off =
        std::pow(10.0f, 2 * rng.uniform() - 4) * (rng.uniform() < 0.5f ? -1.0f : 1.0f);
    switch (kind) {
        case 0: return point;
        case 1: return on_edge;
        case 2: return {on_edge[0] + off, on_edge[1], on_edge[2] - off};
        default: return {point[0], point[1] + 3000 * off, point[2]};  // 0.3 to 30 cm
    }
}

constexpr float kSnapBox[3] = {2, 4, 2};  // NavQuery's snapping box

dtQueryFilter walkable_filter() {
    dtQueryFilter filter;
    filter.setIncludeFlags(nav::kPolyFlagWalk);
    filter.setExcludeFlags(nav::kPolyFlagDisabled);
    return filter;
}

using RawQuery = std::unique_ptr<dtNavMeshQuery, void (*)(dtNavMeshQuery*)>;

// A bare Detour query on the navmesh, as findNearestPoly's reference.
RawQuery raw_query(const nav::NavMesh& mesh) {
    RawQuery raw(dtAllocNavMeshQuery(), dtFreeNavMeshQuery);
    REQUIRE(dtStatusSucceed(raw->init(&mesh.detour(), 2048)));
    return raw;
}

}  // namespace

TEST_CASE("the start-snapping shortcut answers as findNearestPoly does", "[goal_corridor]") {
    const dtQueryFilter filter = walkable_filter();
    for (const Scene& scene : synthetic_scenes()) {
        nav::NavQuery query(scene.mesh);
        const RawQuery raw = raw_query(*scene.mesh);
        nav::StartSnap shortcut;
        Rng rng(9);
        int answered = 0;
        for (int i = 0; i < 4000; ++i) {
            const Vec3 on = query.random_point(rng);
            dtPolyRef guess = 0, expected = 0, got = 0;
            Vec3 nearest{}, snapped{};
            raw->findNearestPoly(on.data(), kSnapBox, &filter, &guess, nearest.data());
            const Vec3 point = probe(scene.mesh->detour(), guess, on, rng, i % 4);
            raw->findNearestPoly(point.data(), kSnapBox, &filter, &expected, nearest.data());
            if (!shortcut.snap(*raw, filter, guess, point, got, snapped)) continue;
            ++answered;
            INFO(scene.name << ": probe " << i);
            REQUIRE(got == expected);
            for (int k = 0; k < 3; ++k)
                REQUIRE(std::bit_cast<std::uint32_t>(snapped[k]) ==
                        std::bit_cast<std::uint32_t>(nearest[k]));
        }
        INFO(scene.name);
        CHECK(answered > 1200);  // the shortcut does answer often
    }
}

TEST_CASE("nearest_polygon picks the polygon findNearestPoly picks", "[goal_corridor]") {
    const dtQueryFilter filter = walkable_filter();
    for (const Scene& scene : synthetic_scenes()) {
        nav::NavQuery query(scene.mesh);
        const RawQuery raw = raw_query(*scene.mesh);
        Rng rng(13);
        int several = 0;
        for (int i = 0; i < 4000; ++i) {
            const Vec3 on = query.random_point(rng);
            dtPolyRef own = 0, expected = 0;
            Vec3 nearest{};
            raw->findNearestPoly(on.data(), kSnapBox, &filter, &own, nearest.data());
            const Vec3 point = probe(scene.mesh->detour(), own, on, rng, i % 4);
            raw->findNearestPoly(point.data(), kSnapBox, &filter, &expected, nearest.data());
            dtPolyRef candidates[512];
            int count = 0;
            raw->queryPolygons(point.data(), kSnapBox, &filter, candidates, &count, 512);
            INFO(scene.name << ": probe " << i << ", " << count << " polygons");
            REQUIRE(nav::nearest_polygon(*raw, point.data(), candidates, count) == expected);
            several += count > 1;
        }
        INFO(scene.name);
        CHECK(several > 3000);  // a choice to make, most times
    }
}
