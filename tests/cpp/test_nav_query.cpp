#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <thread>

#include "core/check.hpp"
#include "nav/nav_query.hpp"
#include "nav_scenes.hpp"

using namespace batchsim;
using nav::Vec3;

namespace {

// Floor-only scenes: the walkable region shrinks from every floor edge by one cell (Recast's
// ledge filter) plus the agent radius (erosion): 0.05 + 0.1 m with the default settings.
constexpr float kMargin = 0.15f;

float distance(const Vec3& a, const Vec3& b) {
    return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

std::mt19937 fresh_rng() {
    const unsigned seed = std::random_device{}();
    INFO("random seed " << seed);
    return std::mt19937(seed);
}

// Shortest path for a disk agent around the reflex corner `c` of an L: tangent, arc of
// radius r around the corner, tangent (all in the xz plane).
double around_corner(double ax, double az, double bx, double bz, double cx, double cz, double r,
                     double turn_degrees) {
    const double da = std::hypot(ax - cx, az - cz), db = std::hypot(bx - cx, bz - cz);
    const double arc = turn_degrees * M_PI / 180 - std::acos(r / da) - std::acos(r / db);
    return std::sqrt(da * da - r * r) + std::sqrt(db * db - r * r) + r * arc;
}

}  // namespace

TEST_CASE("geodesic distance equals Euclidean distance in an empty room", "[nav_query]") {
    nav::NavQuery query(test::bake(test::floors({{0, 0, 10, 10}})));
    auto rng = fresh_rng();
    std::uniform_real_distribution<float> coordinate(0.5f, 9.5f);
    for (int i = 0; i < 200; ++i) {
        const Vec3 a{coordinate(rng), 0, coordinate(rng)}, b{coordinate(rng), 0, coordinate(rng)};
        INFO("from " << a[0] << "," << a[2] << " to " << b[0] << "," << b[2]);
        REQUIRE(query.geodesic_distance(a, b) == Approx(distance(a, b)).margin(1e-3));
    }
}

TEST_CASE("geodesic distance around the corner of an L-shaped corridor", "[nav_query]") {
    // Corridor 2 m wide: along x from (0,0) to (20,2), then along z up to (20,20).
    nav::NavQuery query(test::bake(test::floors({{0, 0, 20, 2}, {18, 0, 20, 20}})));
    const Vec3 a{1, 0, 1}, b{19, 0, 19};
    // Seen from the inner corner (18, 2), the path sweeps from a's direction to b's the long
    // way round, past every free direction (the wall quadrant x < 18, z > 2 is the short way).
    const double angle_a = std::atan2(a[2] - 2.0, a[0] - 18.0) * 180 / M_PI;
    const double angle_b = std::atan2(b[2] - 2.0, b[0] - 18.0) * 180 / M_PI;
    const double sweep = std::fmod(angle_b - angle_a + 720.0, 360.0);  // 263.3 degrees
    const double hand = around_corner(a[0], a[2], b[0], b[2], 18, 2, kMargin, sweep);
    CHECK(query.geodesic_distance(a, b) == Approx(hand).margin(0.01));
    const auto path = query.find_path(a, b);
    REQUIRE(path.size() >= 3);
    CHECK(distance(path.front(), a) < 1e-4f);
    CHECK(distance(path.back(), b) < 1e-4f);
}

TEST_CASE("disconnected rooms are different islands at infinite distance", "[nav_query]") {
    auto mesh = test::bake(test::floors({{0, 0, 4, 4}, {6, 0, 14, 4}}));
    nav::NavQuery query(mesh);
    REQUIRE(mesh->island_count() == 2);
    const Vec3 left{2, 0, 2}, right{10, 0, 2};
    CHECK(query.island_of(left) != query.island_of(right));
    CHECK(query.island_of({5, 0, 2}) >= 0);  // the gap snaps to the nearer room's edge
    CHECK(query.island_of({50, 0, 50}) == -1);
    CHECK(std::isinf(query.geodesic_distance(left, right)));
    CHECK(query.find_path(left, right).empty());
    CHECK(query.geodesic_distance(left, {3, 0, 3}) == Approx(std::sqrt(2.0f)).margin(1e-3));
    // Each island is its eroded room: 3.7 x 3.7 and 7.7 x 3.7 m.
    const auto& small = mesh->island(query.island_of(left));
    const auto& large = mesh->island(query.island_of(right));
    CHECK(small.area == Approx(3.7 * 3.7).epsilon(0.01));
    CHECK(large.area == Approx(7.7 * 3.7).epsilon(0.01));
    CHECK(small.centroid[0] == Approx(2.0).margin(0.05));
    CHECK(small.radius == Approx(std::hypot(1.85, 1.85)).margin(0.25));  // centroid y offset
    CHECK(mesh->navigable_area() == Approx(small.area + large.area));
    CHECK_THROWS_AS(mesh->island(2), Error);
}

TEST_CASE("try_step slides along a wall or stops at it", "[nav_query]") {
    nav::NavQuery query(test::bake(test::floors({{0, 0, 10, 10}})));
    const float wall = 10 - kMargin;
    const Vec3 start{9.5f, 0, 5};
    const float diagonal = std::sqrt(0.5f);
    const Vec3 at_45{start[0] + diagonal, 0, start[2] + diagonal};  // 1 m at 45 degrees
    SECTION("at 45 degrees with sliding: the along-wall part of the step survives") {
        const Vec3 end = query.try_step(start, at_45, true);
        CHECK(end[0] == Approx(wall).margin(0.01));
        CHECK(end[2] == Approx(at_45[2]).margin(0.01));
    }
    SECTION("at 45 degrees without sliding: stops where the step meets the wall") {
        const Vec3 end = query.try_step(start, at_45, false);
        CHECK(end[0] == Approx(wall).margin(0.01));
        CHECK(end[2] == Approx(start[2] + (wall - start[0])).margin(0.01));
    }
    SECTION("head-on: both stop at the wall") {
        for (bool sliding : {true, false}) {
            const Vec3 end = query.try_step(start, {start[0] + 1, 0, start[2]}, sliding);
            CHECK(end[0] == Approx(wall).margin(0.01));
            CHECK(end[2] == Approx(start[2]).margin(1e-3));
        }
    }
    SECTION("free steps arrive, on the floor") {
        for (bool sliding : {true, false}) {
            const Vec3 end = query.try_step({5, 0, 5}, {5.25f, 0, 5}, sliding);
            // y is the navmesh surface, which Recast puts up to a cell height above the floor.
            CHECK(distance(end, {5.25f, 0, 5}) <= 0.2f + 1e-4f);
            CHECK(end[0] == Approx(5.25f).margin(1e-4));
        }
    }
    SECTION("off the navmesh nothing moves") {
        const Vec3 far{50, 0, 50};
        CHECK(query.try_step(far, {50.25f, 0, 50}) == far);
    }
}

TEST_CASE("try_step without sliding crosses polygon portals", "[nav_query]") {
    nav::NavQuery query(test::bake(test::floors({{0, 0, 20, 2}, {18, 0, 20, 20}})));
    // Steps along the corridor cross several polygons; each must arrive unchanged.
    for (float x = 1; x < 17; x += 0.25f) {
        const Vec3 end = query.try_step({x, 0, 1}, {x + 0.25f, 0, 1}, false);
        REQUIRE(end[0] == Approx(x + 0.25f).margin(1e-4));
        REQUIRE(end[2] == Approx(1.0f).margin(1e-4));
    }
}

TEST_CASE("snap_point and is_navigable agree with the geometry", "[nav_query]") {
    nav::NavQuery query(test::bake(test::floors({{0, 0, 10, 10}})));
    auto rng = fresh_rng();
    std::uniform_real_distribution<float> coordinate(-1, 11);
    int inside = 0;
    for (int i = 0; i < 500; ++i) {
        const Vec3 p{coordinate(rng), 0, coordinate(rng)};
        const float to_edge =
            std::min({p[0] - kMargin, 10 - kMargin - p[0], p[2] - kMargin, 10 - kMargin - p[2]});
        if (std::fabs(to_edge) < 0.02f) continue;  // within Recast's voxel error of the edge
        INFO("point " << p[0] << ", " << p[2]);
        CHECK(query.is_navigable(p) == (to_edge > 0));
        inside += to_edge > 0;
        const auto snapped = query.snap_point(p);
        REQUIRE(snapped);
        CHECK(std::fabs((*snapped)[1]) < 0.25f);
        if (to_edge > 0) CHECK(std::hypot((*snapped)[0] - p[0], (*snapped)[2] - p[2]) < 1e-4f);
    }
    CHECK(inside > 100);
    CHECK_FALSE(query.is_navigable({5, 1.0f, 5}));      // 1 m above the floor
    CHECK(query.is_navigable({5, 1.0f, 5}, 1.5f));      // ... unless the tolerance allows it
    const auto outside = query.snap_point({11, 0, 5});  // 1.15 m past the edge
    REQUIRE(outside);
    CHECK((*outside)[0] == Approx(10 - kMargin).margin(0.01));
    CHECK((*outside)[2] == Approx(5).margin(1e-3));
    CHECK_FALSE(query.snap_point({30, 0, 5}));  // beyond habitat-sim's 2 m search box
    CHECK_FALSE(query.snap_point({NAN, 0, 5}));
    CHECK_FALSE(query.snap_point({1e30f, 0, 5}));  // beyond what Detour's float math handles
    CHECK(query.try_step({5, 0, 5}, {1e30f, 0, 5}) == Vec3{5, 0, 5});
    CHECK(std::isinf(query.geodesic_distance({5, 0, 5}, {-1e30f, 0, 5})));
}

TEST_CASE("seeded random points are reproducible, navigable and area-weighted", "[nav_query]") {
    auto mesh = test::bake(test::floors({{0, 0, 4, 4}, {6, 0, 14, 4}}));
    nav::NavQuery query(mesh);
    Rng first(42), second(42);
    int in_large = 0;
    constexpr int kSamples = 4000;
    const int large = query.island_of({10, 0, 2});
    for (int i = 0; i < kSamples; ++i) {
        const Vec3 p = query.random_point(first);
        REQUIRE(p == query.random_point(second));
        REQUIRE(query.is_navigable(p));
        in_large += query.island_of(p) == large;
    }
    // Areas 28.49 and 13.69 m²: 67.5% of the points in the large room (binomial sd 0.74%).
    const double expected = mesh->island(large).area / mesh->navigable_area();
    CHECK(double(in_large) / kSamples == Approx(expected).margin(0.03));
    Rng rng(7);
    for (int i = 0; i < 200; ++i)
        REQUIRE(query.island_of(query.random_point(rng, 1 - large)) == 1 - large);
    CHECK_THROWS_AS(query.random_point(rng, 5), Error);
}

TEST_CASE("distance to the closest obstacle", "[nav_query]") {
    nav::NavQuery query(test::bake(test::floors({{0, 0, 10, 10}})));
    CHECK(query.distance_to_closest_obstacle({5, 0, 5}, 10) == Approx(5 - kMargin).margin(0.01));
    CHECK(query.distance_to_closest_obstacle({1, 0, 5}, 10) == Approx(1 - kMargin).margin(0.01));
    CHECK(query.distance_to_closest_obstacle({5, 0, 5}) == Approx(2.0f));  // capped at the radius
    CHECK(query.distance_to_closest_obstacle({50, 0, 50}) == 0.0f);
}

TEST_CASE("top-down view marks the navigable cells", "[nav_query]") {
    auto mesh = test::bake(test::floors({{0, 0, 10, 10}}));
    nav::NavQuery query(mesh);
    const nav::TopDownView view = query.topdown_view(0.1f, 0.0f);
    REQUIRE(view.rows == 100);
    REQUIRE(view.cols == 100);
    // Cell (r, c) is the point (c / 10, 0, r / 10): navigable for 0.2 <= x, z <= 9.8.
    auto at = [&](std::size_t r, std::size_t c) {
        return view.navigable[r * std::size_t(view.cols) + c];
    };
    CHECK(at(50, 50) == 1);
    CHECK(at(0, 50) == 0);
    CHECK(at(50, 1) == 0);
    CHECK(at(50, 2) == 1);
    CHECK(at(98, 98) == 1);
    CHECK(at(99, 99) == 0);
    CHECK_THROWS_AS(query.topdown_view(0, 0), Error);
}

TEST_CASE("query objects on several threads share one navmesh", "[nav_query]") {
    const auto mesh = test::bake(test::floors({{0, 0, 20, 2}, {18, 0, 20, 20}}));
    std::vector<Vec3> starts, ends;
    Rng rng(3);
    nav::NavQuery reference(mesh);
    for (int i = 0; i < 400; ++i) starts.push_back(reference.random_point(rng));
    for (int i = 0; i < 400; ++i) ends.push_back(reference.random_point(rng));
    std::vector<float> expected;
    for (std::size_t i = 0; i < starts.size(); ++i)
        expected.push_back(reference.geodesic_distance(starts[i], ends[i]));
    std::vector<std::vector<float>> results(4);
    std::vector<std::thread> threads;
    threads.reserve(results.size());
    for (auto& result : results)
        threads.emplace_back([&mesh, &starts, &ends, &result] {
            nav::NavQuery query(mesh);  // one per thread; the mesh is shared read-only
            for (std::size_t i = 0; i < starts.size(); ++i)
                result.push_back(query.geodesic_distance(starts[i], ends[i]));
        });
    for (auto& thread : threads) thread.join();
    for (const auto& result : results) CHECK(result == expected);
}
