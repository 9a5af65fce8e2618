// Checks of nav/batch_queries.cpp: each batched query equals the single query it repeats.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "core/check.hpp"
#include "nav/batch_queries.hpp"
#include "nav_scenes.hpp"

using namespace batchsim;
using nav::Vec3;

TEST_CASE("batch queries: the same values as one query per point", "[batch_queries]") {
    // An L of two floors: geodesics bend round the corner, steps slide along its walls.
    const auto mesh = test::bake(test::floors({{0, 0, 6, 2}, {4, 0, 6, 6}}));
    nav::NavQuery batch(mesh), single(mesh);
    Rng points_rng(3, 0);
    std::vector<Vec3> starts(40), ends(40);
    nav::random_points(batch, points_rng, -1, starts);
    nav::random_points(batch, points_rng, -1, ends);
    Rng replay(3, 0);
    for (const Vec3& p : starts) CHECK(single.random_point(replay) == p);  // one stream, in order

    std::vector<float> distances(40);
    nav::geodesic_distances(batch, starts, ends, distances);
    std::vector<Vec3> reached(40);
    nav::try_steps(batch, starts, ends, true, reached);
    int bent = 0;
    for (std::size_t i = 0; i < starts.size(); ++i) {
        CHECK(distances[i] == single.geodesic_distance(starts[i], ends[i]));
        CHECK(reached[i] == single.try_step(starts[i], ends[i], true));
        const float straight = std::hypot(ends[i][0] - starts[i][0], ends[i][2] - starts[i][2]);
        bent += distances[i] > straight + 0.01f ? 1 : 0;
    }
    CHECK(bent > 0);  // some pairs went round the corner

    std::vector<float> short_out(3);
    CHECK_THROWS_WITH(nav::geodesic_distances(batch, starts, std::span(ends).first(3), short_out),
                      Catch::Contains("starts and ends must have the same length, got 40 and 3"));
}
