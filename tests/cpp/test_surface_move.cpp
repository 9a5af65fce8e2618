#include <catch2/catch.hpp>

#include <DetourNavMeshQuery.h>

#include "nav/islands.hpp"
#include "nav/surface_move.hpp"
#include "nav_scenes.hpp"

using namespace batchsim;

namespace {

struct Fixture {
    std::shared_ptr<const nav::NavMesh> mesh = test::bake(test::floors({{0, 0, 10, 10}}));
    dtNavMeshQuery* query = dtAllocNavMeshQuery();
    dtQueryFilter filter;
    Fixture() { query->init(&mesh->detour(), 2048); }
    ~Fixture() { dtFreeNavMeshQuery(query); }
    dtPolyRef poly_at(const nav::Vec3& p) {
        const float extents[3] = {2, 4, 2};
        dtPolyRef ref = 0;
        query->findNearestPoly(p.data(), extents, &filter, &ref, nullptr);
        return ref;
    }
};

}  // namespace

TEST_CASE("move_without_sliding reaches free targets and stops at walls", "[surface_move]") {
    Fixture f;
    const nav::Vec3 start{5, 0, 5};
    const auto free =
        nav::move_without_sliding(f.mesh->detour(), f.filter, f.poly_at(start), start, {6, 0, 6});
    REQUIRE(free);
    CHECK(free->position == nav::Vec3{6, 0, 6});
    // Towards (12, 0, 8): the segment meets the wall x = 9.85 at z = 5 + 4.85 * 3 / 7.
    const auto hit =
        nav::move_without_sliding(f.mesh->detour(), f.filter, f.poly_at(start), start, {12, 0, 8});
    REQUIRE(hit);
    CHECK(hit->position[0] == Approx(9.85).margin(0.01));
    CHECK(hit->position[2] == Approx(5 + 4.85 * 3 / 7).margin(0.01));
    // Compare with Detour's raycast, an independent route to the same wall crossing.
    float t = 0, normal[3];
    dtPolyRef path[16];
    int path_count = 0;
    const nav::Vec3 end{12, 0, 8};
    f.query->raycast(f.poly_at(start), start.data(), end.data(), &f.filter, &t, normal, path,
                     &path_count, 16);
    CHECK(hit->position[0] == Approx(start[0] + t * (end[0] - start[0])).margin(1e-3));
    CHECK(hit->position[2] == Approx(start[2] + t * (end[2] - start[2])).margin(1e-3));
}
