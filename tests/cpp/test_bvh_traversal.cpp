#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include "assets/bvh.hpp"
#include "bvh_test_scenes.hpp"

namespace {

using batchsim::assets::Bvh;
using batchsim::assets::BvhHit;
using batchsim::gpu::BvhNode;
using batchsim::gpu::kBvhLeaf;
using batchsim::test::bounds_of;
using batchsim::test::Box;
using batchsim::test::Geometry;
using batchsim::test::kInf;
using batchsim::test::room;
using batchsim::test::soup;
using batchsim::test::Vec3;

std::optional<BvhHit> brute_force(const Bvh& bvh, const Vec3& o, const Vec3& d, float t_min,
                                  float t_max) {
    std::optional<BvhHit> best;
    for (std::uint32_t k = 0; k < bvh.triangles.size(); ++k) {
        const auto hit = batchsim::assets::intersect_triangle(bvh.triangles, k, o, d, t_min,
                                                              best ? best->t : t_max);
        if (hit && (!best || hit->t < best->t)) best = hit;
    }
    return best;
}

// `rays` random rays, half starting inside `bounds`, some axis-parallel, with random
// lengths and t ranges: closest_hit must find what brute force finds. Returns the hits.
int compare_with_brute_force(const Bvh& bvh, const Box& bounds, unsigned seed, int rays) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> unit(0, 1);
    std::normal_distribution<float> normal(0, 1);
    int hits = 0, mismatches = 0;
    for (int r = 0; r < rays; ++r) {
        Vec3 o, d;
        for (std::size_t a = 0; a < 3; ++a) {
            const float extent = bounds.hi[a] - bounds.lo[a];
            o[a] = bounds.lo[a] + extent * (r % 2 == 0 ? unit(random) : 3 * unit(random) - 1);
            d[a] = normal(random) * (0.1f + 10 * unit(random));
        }
        if (r % 7 == 0) d[r % 3] = 0;  // parallel to a slab pair
        const float t_min = r % 5 == 0 ? 0.5f * unit(random) : 0.0f;
        const float t_max = r % 3 == 0 ? 2 * unit(random) : kInf;
        const auto expected = brute_force(bvh, o, d, t_min, t_max);
        const auto got =
            batchsim::assets::closest_hit(bvh.nodes, bvh.triangles, o, d, t_min, t_max);
        hits += expected.has_value();
        const bool same =
            expected.has_value() == got.has_value() &&
            (!expected || got->triangle == expected->triangle ||
             std::abs(got->t - expected->t) <= 1e-5f * std::max(1.0f, std::abs(expected->t)));
        if (!same) {
            ++mismatches;
            UNSCOPED_INFO("ray " << r << ": expected " << (expected ? expected->t : -1) << " got "
                                 << (got ? got->t : -1));
        }
    }
    CHECK(mismatches == 0);
    return hits;
}

}  // namespace

TEST_CASE("closest hits of random soups match brute force", "[bvh_traversal]") {
    for (const unsigned seed : {1u, 2u, 3u}) {
        INFO("seed " << seed);
        const Geometry g = soup(seed);
        const int hits = compare_with_brute_force(g.build(), bounds_of(g), seed, 3000);
        CHECK(hits > 400);  // the rays do meet the geometry
    }
}

TEST_CASE("closest hits in an axis-aligned room match brute force", "[bvh_traversal]") {
    const Geometry g = room();
    const Bvh bvh = g.build();
    CHECK(compare_with_brute_force(bvh, bounds_of(g), 7, 4000) > 1500);
    // A camera ray from the middle of the room down onto the floor.
    const auto hit = batchsim::assets::closest_hit(bvh.nodes, bvh.triangles, {5.1f, 1.25f, 4.9f},
                                                   {0, -1, 0}, 0.01f, 1000);
    REQUIRE(hit);
    CHECK(hit->t == Approx(1.25f));
    CHECK(bvh.triangles[hit->triangle].ay == 0.0f);
    // Limits: the floor lies beyond t_max, and a ray starting past it sees nothing.
    CHECK_FALSE(batchsim::assets::closest_hit(bvh.nodes, bvh.triangles, {5.1f, 1.25f, 4.9f},
                                              {0, -1, 0}, 0.01f, 1.2f));
    CHECK_FALSE(batchsim::assets::closest_hit(bvh.nodes, bvh.triangles, {5.1f, 1.25f, 4.9f},
                                              {0, -1, 0}, 1.3f, 1000));
}

TEST_CASE("a one-triangle scene: hit point, barycentrics, both faces", "[bvh_traversal]") {
    Geometry g;
    g.add({0, 0, 0}, {1, 0, 0}, {0, 0, 1});
    g.finish();
    const Bvh bvh = g.build();
    for (const float side : {1.0f, -1.0f}) {
        const auto hit = batchsim::assets::closest_hit(bvh.nodes, bvh.triangles, {0.2f, side, 0.3f},
                                                       {0, -2 * side, 0}, 0, kInf);
        REQUIRE(hit);
        CHECK(hit->triangle == 0);
        CHECK(hit->t == Approx(0.5f));  // direction not unit: t scales with it
        CHECK(hit->b1 == Approx(0.2f));
        CHECK(hit->b2 == Approx(0.3f));
    }
    CHECK_FALSE(batchsim::assets::closest_hit(bvh.nodes, bvh.triangles, {0.8f, 1, 0.8f}, {0, -1, 0},
                                              0, kInf));
}

TEST_CASE("zero-area triangles are never hit", "[bvh_traversal]") {
    Geometry g;
    for (int i = 0; i < 300; ++i) {
        const int row = i / 17;  // 17 triangles a row
        const float x = float(i % 17), z = float(row);
        g.add({x, 0, z}, {x, 0, z}, i % 2 == 0 ? Vec3{x + 1, 0, z} : Vec3{x, 0, z});
    }
    g.finish();
    CHECK(compare_with_brute_force(g.build(), bounds_of(g), 3, 500) == 0);
}

TEST_CASE("10,000 identical triangles: the closest is found", "[bvh_traversal]") {
    Geometry g;
    for (int i = 0; i < 10000; ++i) g.add({0, 0, 0}, {1, 0, 0}, {0, 1, 0});
    g.finish();
    const Bvh bvh = g.build();
    const auto hit = batchsim::assets::closest_hit(bvh.nodes, bvh.triangles, {0.2f, 0.2f, 1},
                                                   {0, 0, -1}, 0, kInf);
    REQUIRE(hit);
    CHECK(hit->t == 1.0f);
}

TEST_CASE("an empty bvh has no hits", "[bvh_traversal]") {
    const Bvh bvh = batchsim::assets::build_bvh({}, {}, {});
    CHECK_FALSE(
        batchsim::assets::closest_hit(bvh.nodes, bvh.triangles, {0, 0, 0}, {1, 0, 0}, 0, kInf));
    CHECK_FALSE(batchsim::assets::closest_hit({}, {}, {0, 0, 0}, {1, 0, 0}, 0, kInf));
}

TEST_CASE("bvh depth counts the nodes of the longest path", "[bvh_traversal]") {
    // Root -> 1 -> 2 on the left, root -> 3 on the right: three levels.
    std::vector<BvhNode> nodes(4, BvhNode{});
    const auto link = [&](std::uint32_t parent, std::uint32_t left, std::uint32_t right) {
        nodes[parent].left = left, nodes[parent].right = right;
        nodes[parent].left_count = left == 0 ? kBvhLeaf : 0;
        nodes[parent].right_count = right == 0 ? kBvhLeaf : 0;
    };
    link(0, 1, 3), link(1, 2, 0), link(2, 0, 0), link(3, 0, 0);
    CHECK(batchsim::assets::bvh_depth(nodes) == 3);
    BvhNode root{};
    root.left_count = root.right_count = kBvhLeaf;
    CHECK(batchsim::assets::bvh_depth(std::span{&root, 1}) == 1);
}
