// pulled_length, corridor mode's string pull: bit for bit the length of Detour's
// findStraightPath along the corridor's rest, on the corridor tests' walks
// (goal_corridor_scenes.hpp) and on starts jittered around them (where the remembered
// corners are reused), with Habitat's corner buffer and with one small enough to overflow.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include <DetourCommon.h>
#include <DetourNavMeshQuery.h>

#include "core/random.hpp"
#include "goal_corridor_scenes.hpp"
#include "nav/nav_query.hpp"
#include "nav/string_pull.hpp"

using namespace batchsim;
using namespace batchsim::test::corridor;
using nav::Vec3;

namespace {

using RawQuery = std::unique_ptr<dtNavMeshQuery, void (*)(dtNavMeshQuery*)>;

RawQuery raw_query(const nav::NavMesh& mesh) {
    RawQuery raw(dtAllocNavMeshQuery(), dtFreeNavMeshQuery);
    REQUIRE(dtStatusSucceed(raw->init(&mesh.detour(), 2048)));
    return raw;
}

// findStraightPath's corners summed as NavQuery sums them: the reference.
float detour_length(const dtNavMeshQuery& query, const Vec3& start, const Vec3& end,
                    const nav::GoalCorridor& corridor, int first, int max_corners) {
    std::vector<float> corners(3 * std::size_t(max_corners));
    int count = 0;
    if (query.findStraightPath(start.data(), end.data(), corridor.polys.data() + first,
                               corridor.poly_count - first, corners.data(), nullptr, nullptr,
                               &count, max_corners) != DT_SUCCESS)
        return std::numeric_limits<float>::infinity();
    double length = 0;
    for (std::size_t i = 1; i < std::size_t(count); ++i)
        length += dtVdist(&corners[3 * (i - 1)], &corners[3 * i]);
    return static_cast<float>(length);
}

std::uint32_t bits(float value) {
    return std::bit_cast<std::uint32_t>(value);
}

struct Tally {
    long queries = 0, finite = 0, overflowed = 0, reused = 0;
};

// One start against the reference, with each buffer size's own remembered corners; a copy
// with its remembered distances made wrong tells whether they were used.
void check_start(const dtNavMeshQuery& raw, const Vec3& start, const Vec3& goal,
                 nav::GoalCorridor (&pulls)[2], int first, Tally& tally) {
    constexpr int kBuffers[2] = {256, 6};
    for (int b = 0; b < 2; ++b) {
        nav::GoalCorridor poisoned = pulls[b];
        for (int k = 0; k < poisoned.pulled_count; ++k) poisoned.pulled[k].to_next += 1.0f;
        const float expected = detour_length(raw, start, goal, pulls[b], first, kBuffers[b]);
        const float got = nav::pulled_length(raw, start, goal, pulls[b], first, kBuffers[b]);
        REQUIRE(bits(got) == bits(expected));
        const float from_poisoned =
            nav::pulled_length(raw, start, goal, poisoned, first, kBuffers[b]);
        tally.queries += 1;
        tally.finite += std::isfinite(expected) ? 1 : 0;
        tally.overflowed += b == 1 && std::isinf(expected) ? 1 : 0;
        tally.reused += bits(from_poisoned) != bits(got) ? 1 : 0;
    }
}

}  // namespace

TEST_CASE("pulled_length is findStraightPath's length, bit for bit", "[string_pull]") {
    Tally tally;
    for (const Scene& scene : synthetic_scenes()) {
        nav::NavQuery query(scene.mesh);
        const RawQuery raw = raw_query(*scene.mesh);
        Rng rng(17);
        for (const Episode& run : episodes(query, 23, 12)) {
            nav::GoalCorridor corridor, pulls[2];
            query.set_goal(corridor, run.goal);
            for (const Vec3& position : run.positions) {
                (void)query.geodesic_distance(position, corridor);  // searches where it must
                if (corridor.poly_count == 0) continue;
                for (nav::GoalCorridor& pull : pulls) {
                    if (pull.polys != corridor.polys || pull.poly_count != corridor.poly_count)
                        pull = corridor, pull.pulled_count = 0;  // new polys: forget corners
                }
                // The corridor from its start, and from a later polygon, at the agent and a
                // few centimetres around it.
                const int later = int(rng.uniform() * float(corridor.poly_count));
                for (int first : {0, later}) {
                    check_start(*raw, position, run.goal, pulls, first, tally);
                    const Vec3 jittered{position[0] + 0.05f * (rng.uniform() - 0.5f), position[1],
                                        position[2] + 0.05f * (rng.uniform() - 0.5f)};
                    check_start(*raw, jittered, run.goal, pulls, first, tally);
                }
            }
        }
    }
    INFO(tally.queries << " queries, " << tally.finite << " finite, " << tally.overflowed
                       << " overflowed, " << tally.reused << " reused corners");
    CHECK(tally.queries > 20000);
    CHECK(tally.finite > tally.queries / 2);
    CHECK(tally.overflowed > 100);             // the small buffer's limit is exercised
    CHECK(tally.reused > tally.queries / 10);  // and the remembered corners are
}
