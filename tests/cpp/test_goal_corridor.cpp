// GoalCorridor: corridor-mode geodesic distances against fresh searches on random walks like
// the simulator's (0.25 m forward steps with sliding, ±10° turns) through mazes, rooms with
// pillars and two storeys (goal_corridor_scenes.hpp). The start-snapping shortcut's case is
// in test_goal_corridor_start_snap.cpp, the hidden [.goal_corridor_bench] measurement in
// test_goal_corridor_bench.cpp.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/check.hpp"
#include "goal_corridor_scenes.hpp"
#include "nav/nav_query.hpp"
#include "nav_scenes.hpp"

using namespace batchsim;
using namespace batchsim::test::corridor;
using nav::Vec3;

TEST_CASE("corridor mode stays within 1 cm of a fresh search on seeded random walks",
          "[goal_corridor]") {
    for (const Scene& scene : synthetic_scenes()) {
        nav::NavQuery query(scene.mesh);
        const Comparison result = compare(query, episodes(query, 11, 12));
        INFO(scene.name << ": " << result.queries << " queries");
        REQUIRE(result.queries > 500);
        CHECK(result.beyond_tolerance == 0);
        CHECK(result.reused_later > 0);  // the reuse is not silently off
        CHECK(*std::max_element(result.deviations.begin(), result.deviations.end()) <= kTolerance);
    }
}

TEST_CASE("exact mode is bit-identical to geodesic_distance", "[goal_corridor]") {
    const std::vector<Scene> scenes = synthetic_scenes();
    nav::NavQuery query(scenes[1].mesh);
    Rng rng(5);
    nav::GoalCorridor corridor;
    for (int i = 0; i < 300; ++i) {
        const Vec3 goal = query.random_point(rng), start = query.random_point(rng);
        query.set_goal(corridor, goal);
        const float exact = query.geodesic_distance(start, corridor, true);
        REQUIRE(std::bit_cast<std::uint32_t>(exact) ==
                std::bit_cast<std::uint32_t>(query.geodesic_distance(start, goal)));
        // Exact mode leaves the cache alone, and corridor mode agrees on a fresh search.
        REQUIRE(corridor.poly_count == 0);
        REQUIRE(std::bit_cast<std::uint32_t>(query.geodesic_distance(start, corridor)) ==
                std::bit_cast<std::uint32_t>(exact));
    }
}

TEST_CASE("a tracked try_step is bit-identical to try_step", "[goal_corridor]") {
    long steps = 0, moved = 0, repeated = 0;
    for (const Scene& scene : synthetic_scenes()) {
        nav::NavQuery query(scene.mesh);
        Rng rng(11);
        nav::GoalCorridor corridor;
        for (int e = 0; e < 40; ++e) {
            Vec3 position = query.random_point(rng);
            query.set_goal(corridor, query.random_point(rng));
            float heading = rng.uniform() * 6.2831853f;
            Vec3 last_ahead{};
            bool last_slide = false;
            for (int step = 0; step < 120; ++step, ++steps) {
                heading += rng.uniform() < 0.3f ? kTurn : 0.0f;
                const Vec3 ahead{position[0] + kStep * std::sin(heading), position[1],
                                 position[2] + kStep * std::cos(heading)};
                const bool slide = step % 7 != 0;
                const Vec3 plain = query.try_step(position, ahead, slide);
                const Vec3 tracked = query.try_step(position, ahead, slide, corridor);
                INFO(scene.name << " episode " << e << " step " << step);
                for (int k = 0; k < 3; ++k)
                    REQUIRE(std::bit_cast<std::uint32_t>(plain[k]) ==
                            std::bit_cast<std::uint32_t>(tracked[k]));
                moved += plain != position;
                // Blocked and not turning: the next step asks the same again (from memory).
                repeated += plain == position && ahead == last_ahead && slide == last_slide;
                last_ahead = ahead, last_slide = slide;
                position = tracked;
            }
        }
    }
    CHECK(moved > steps / 2);
    CHECK(repeated > 100);
}

TEST_CASE("corridor and exact modes agree on unreachable and degenerate cases", "[goal_corridor]") {
    // Two rooms 2 m apart: two islands.
    nav::NavQuery query(test::bake(test::floors({{0, 0, 4, 4}, {6, 0, 10, 4}})));
    const Vec3 left{2, 0, 2}, right{8, 0, 2}, off_mesh{2, 0, 40};
    const float inf = std::numeric_limits<float>::infinity();
    nav::GoalCorridor corridor;
    for (bool exact : {false, true}) {
        query.set_goal(corridor, right);
        CHECK(query.geodesic_distance(left, corridor, exact) == inf);      // other island
        CHECK(query.geodesic_distance(off_mesh, corridor, exact) == inf);  // start off the mesh
        CHECK(query.geodesic_distance({8, 0, 1}, corridor, exact) == Approx(1).margin(1e-4));
        CHECK(query.geodesic_distance(right, corridor, exact) ==
              query.geodesic_distance(right, right));  // same point: 0
        query.set_goal(corridor, off_mesh);
        CHECK(query.geodesic_distance(left, corridor, exact) == inf);  // goal off the mesh
        query.set_goal(corridor, {std::nanf(""), 0, 0});
        CHECK(query.geodesic_distance(left, corridor, exact) == inf);
    }
}

TEST_CASE("set_goal drops the cached path", "[goal_corridor]") {
    nav::NavQuery query(synthetic_scenes()[0].mesh);
    Rng rng(3);
    nav::GoalCorridor corridor;
    const Vec3 start = query.random_point(rng);
    for (int i = 0; i < 50; ++i) {
        const Vec3 goal = query.random_point(rng);
        query.set_goal(corridor, goal);
        CHECK(corridor.poly_count == 0);
        // The same start each time: only the goal changed, so a stale path would show.
        REQUIRE(std::bit_cast<std::uint32_t>(query.geodesic_distance(start, corridor)) ==
                std::bit_cast<std::uint32_t>(query.geodesic_distance(start, goal)));
    }
}

TEST_CASE("a corridor works with any NavQuery of its navmesh, and only those", "[goal_corridor]") {
    const auto mesh = synthetic_scenes()[2].mesh;
    nav::NavQuery first(mesh), second(mesh);
    const std::vector<Episode> runs = episodes(first, 21, 4);
    nav::GoalCorridor corridor;
    for (const Episode& episode : runs) {
        first.set_goal(corridor, episode.goal);
        for (std::size_t i = 0; i < episode.positions.size(); ++i) {
            nav::NavQuery& query = i % 3 == 0 ? first : second;  // searches interleave
            const Vec3& at = episode.positions[i];
            REQUIRE(std::fabs(query.geodesic_distance(at, corridor) -
                              second.geodesic_distance(at, episode.goal)) <= kTolerance);
        }
    }
    nav::NavQuery stranger(test::bake(test::floors({{0, 0, 4, 4}})));
    try {
        (void)stranger.geodesic_distance({1, 0, 1}, corridor);
        FAIL("expected an InvalidArgument error");
    } catch (const Error& e) {
        CHECK(e.kind() == Error::Kind::InvalidArgument);
    }
}
