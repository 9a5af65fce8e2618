#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <random>
#include <vector>

#include "assets/bvh_wide.hpp"
#include "assets/packed_scene.hpp"
#include "bvh_test_scenes.hpp"

namespace {

using batchsim::assets::Bvh4Node;
using batchsim::assets::BvhNode;
using batchsim::assets::BvhTriangle;
using batchsim::gpu::kBvhLeaf;
using batchsim::test::Box;
using batchsim::test::kInf;
using batchsim::test::triangle_box;
using batchsim::test::Vec3;

Box slot_box(const Bvh4Node& n, std::size_t i) {
    return {{n.lo_x[i], n.lo_y[i], n.lo_z[i]}, {n.hi_x[i], n.hi_y[i], n.hi_z[i]}};
}

// Walks every node from the root: each node reached once, each child after its parent, each
// triangle in exactly one leaf, each box holding its subtree's boxes or triangles, unused
// slots at +infinity. Returns the number of triangles reached.
std::size_t check_structure(std::span<const Bvh4Node> nodes,
                            std::span<const BvhTriangle> triangles) {
    std::vector<int> node_seen(nodes.size()), triangle_seen(triangles.size());
    std::vector<std::uint32_t> todo{0};
    int bad = 0;
    while (!todo.empty()) {
        const std::uint32_t at = todo.back();
        todo.pop_back();
        ++node_seen[at];
        for (std::size_t i = 0; i < 4; ++i) {
            const Bvh4Node& n = nodes[at];
            const Box box = slot_box(n, i);
            if (n.count[i] == kBvhLeaf) {  // unused, or the empty leaf of a tiny scene
                bad += box.lo != Vec3{kInf, kInf, kInf} || box.hi != box.lo;
            } else if (n.count[i] != 0) {
                for (std::uint32_t k = n.child[i]; k < n.child[i] + (n.count[i] & ~kBvhLeaf); ++k) {
                    ++triangle_seen.at(k);
                    bad += !box.contains(triangle_box(triangles[k]));
                }
            } else {
                bad += n.child[i] <= at || n.child[i] >= nodes.size();
                for (std::size_t j = 0; j < 4; ++j)
                    if (nodes[n.child[i]].count[j] != kBvhLeaf)
                        bad += !box.contains(slot_box(nodes[n.child[i]], j));
                todo.push_back(n.child[i]);
            }
        }
    }
    CHECK(bad == 0);
    CHECK(std::count(node_seen.begin(), node_seen.end(), 1) == std::ssize(node_seen));
    CHECK(std::count(triangle_seen.begin(), triangle_seen.end(), 1) == std::ssize(triangle_seen));
    CHECK(batchsim::assets::bvh4_stack_bound(nodes) <= BATCHSIM_BVH_MAX_DEPTH);
    return triangles.size();
}

struct Rays {
    Box bounds;    // origins are drawn from it, grown by `spread` on each side
    float spread;  // fraction of the extent, for half of the rays
    float t_min, t_max;
};

float brute_force_t(std::span<const BvhTriangle> triangles, const Vec3& o, const Vec3& d,
                    float t_min, float t_max) {
    float best = kInf;
    for (std::uint32_t k = 0; k < triangles.size(); ++k) {
        const auto hit = batchsim::assets::intersect_triangle(triangles, k, o, d, t_min, t_max);
        if (hit) best = std::min(best, hit->t);
    }
    return best;
}

// closest_hit4 on the 4-wide collapse against closest_hit on the BVH2, ray for ray: the same
// hit or miss, at the very same t (a different triangle only for ties) or the brute-force one.
// Returns the hits.
int compare_with_bvh2(std::span<const BvhNode> nodes, std::span<const BvhTriangle> triangles,
                      const Rays& rays, unsigned seed, int count) {
    const std::vector<Bvh4Node> wide = batchsim::assets::collapse_bvh4(nodes);
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> unit(0, 1);
    std::normal_distribution<float> normal(0, 1);
    int hits = 0, mismatches = 0, same_triangle = 0;
    for (int r = 0; r < count; ++r) {
        Vec3 o, d;
        for (std::size_t a = 0; a < 3; ++a) {
            const float extent = rays.bounds.hi[a] - rays.bounds.lo[a];
            const float spread = r % 2 == 0 ? 0.0f : rays.spread;  // half start inside
            o[a] = rays.bounds.lo[a] + extent * ((1 + 2 * spread) * unit(random) - spread);
            d[a] = normal(random);
        }
        if (r % 7 == 0) d[r % 3] = 0;  // parallel to a slab pair
        const auto expected =
            batchsim::assets::closest_hit(nodes, triangles, o, d, rays.t_min, rays.t_max);
        const auto got =
            batchsim::assets::closest_hit4(wide, triangles, o, d, rays.t_min, rays.t_max);
        hits += expected.has_value();
        bool same = expected.has_value() == got.has_value() && (!expected || got->t == expected->t);
        // Where they differ, the BVH2 walk may be the one off: it prunes a box by its rounded
        // entry distance, which closest_hit4 allows a margin for. Brute force decides.
        if (!same && got) same = got->t == brute_force_t(triangles, o, d, rays.t_min, rays.t_max);
        same_triangle += expected && got && got->triangle == expected->triangle;
        if (!same) {
            ++mismatches;
            UNSCOPED_INFO(std::setprecision(9)
                          << "ray " << r << ": expected " << (expected ? expected->t : -1)
                          << " got " << (got ? got->t : -1));
        }
    }
    CHECK(mismatches == 0);
    CHECK(same_triangle >= hits * 99 / 100);  // ties, where triangles share an edge, are rare
    return hits;
}

// A BVH2 of the deepest shape the builder allows: a spine of BATCHSIM_BVH_MAX_DEPTH nodes
// with boxes of the whole scene, each with a small side node of two one-triangle leaves. The
// collapse opens spine nodes first (largest area), which fills the stack fastest.
batchsim::assets::Bvh deep_spine() {
    const std::uint32_t spine = BATCHSIM_BVH_MAX_DEPTH;
    batchsim::assets::Bvh bvh;
    std::mt19937 random(11);
    std::uniform_real_distribution<float> unit(0, 10);
    for (std::uint32_t k = 0; k < 2 * spine; ++k) {
        const float x = unit(random), y = unit(random), z = unit(random);
        bvh.triangles.push_back({x, y, z, k, x + 1, y, z, 0, x, y + 1, z + 0.5f, 0});
    }
    const auto box = [&](std::uint32_t first, std::uint32_t count) {
        Box b;
        for (std::uint32_t k = first; k < first + count; ++k)
            b.grow(triangle_box(bvh.triangles[k]));
        return b;
    };
    const auto node = [](const Box& l, std::uint32_t left, std::uint32_t left_count, const Box& r,
                         std::uint32_t right, std::uint32_t right_count) {
        return BvhNode{l.lo[0], l.lo[1], l.lo[2], left,  l.hi[0], l.hi[1], l.hi[2], left_count,
                       r.lo[0], r.lo[1], r.lo[2], right, r.hi[0], r.hi[1], r.hi[2], right_count};
    };
    const Box all = box(0, 2 * spine);
    for (std::uint32_t i = 0; i + 1 < spine; ++i) {
        bvh.nodes.push_back(node(box(2 * i, 2), 2 * i + 1, 0, all, 2 * i + 2, 0));  // spine
        bvh.nodes.push_back(node(box(2 * i, 1), 2 * i, 1 | kBvhLeaf, box(2 * i + 1, 1), 2 * i + 1,
                                 1 | kBvhLeaf));  // side
    }
    const std::uint32_t last = 2 * spine - 2;
    bvh.nodes.push_back(
        node(box(last, 1), last, 1 | kBvhLeaf, box(last + 1, 1), last + 1, 1 | kBvhLeaf));
    return bvh;
}

// The packed procgen scenes, if built: $BATCHSIM_PROCGEN_SCENES, else the test-data folder
// the Python tests fill.
std::vector<std::filesystem::path> procgen_scenes() {
    const char* env = std::getenv("BATCHSIM_PROCGEN_SCENES");
    const std::filesystem::path dir = env ? env : "build/test-data/procgen/scene_datasets/procgen";
    std::vector<std::filesystem::path> out;
    if (!std::filesystem::is_directory(dir)) return out;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (entry.path().extension() == ".bsscene") out.push_back(entry.path());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("4-wide collapse of soups and a room: structure and the same closest hits",
          "[bvh_wide]") {
    for (const unsigned seed : {1u, 2u, 3u}) {
        INFO("soup " << seed);
        const auto g = batchsim::test::soup(seed);
        const auto bvh = g.build();
        const auto wide = batchsim::assets::collapse_bvh4(bvh.nodes);
        CHECK(check_structure(wide, bvh.triangles) == 2000);
        CHECK(wide.size() * 2 < bvh.nodes.size());  // about a third as many nodes
        const Rays rays{batchsim::test::bounds_of(g), 1.0f, 0.0f, kInf};
        CHECK(compare_with_bvh2(bvh.nodes, bvh.triangles, rays, seed, 3000) > 400);
    }
    const auto room = batchsim::test::room();
    const auto bvh = room.build();
    check_structure(batchsim::assets::collapse_bvh4(bvh.nodes), bvh.triangles);
    const Rays inside{batchsim::test::bounds_of(room), 0.0f, 0.01f, 100.0f};
    CHECK(compare_with_bvh2(bvh.nodes, bvh.triangles, inside, 4, 4000) > 3900);
}

TEST_CASE("4-wide collapse of tiny and deep trees", "[bvh_wide]") {
    SECTION("one triangle: the leaf and three unused slots") {
        batchsim::test::Geometry g;
        g.add({0, 0, 0}, {1, 0, 0}, {0, 0, 1});
        g.finish();
        const auto bvh = g.build();
        const auto wide = batchsim::assets::collapse_bvh4(bvh.nodes);
        REQUIRE(wide.size() == 1);
        CHECK(wide[0].count == std::array{1 | kBvhLeaf, kBvhLeaf, kBvhLeaf, kBvhLeaf});
        check_structure(wide, bvh.triangles);
        const auto hit = batchsim::assets::closest_hit4(wide, bvh.triangles, {0.2f, 1, 0.3f},
                                                        {0, -2, 0}, 0, kInf);
        REQUIRE(hit);
        CHECK(hit->t == 0.5f);
        CHECK(hit->b1 == Approx(0.2f));
        CHECK(hit->b2 == Approx(0.3f));
        CHECK_FALSE(batchsim::assets::closest_hit4(wide, bvh.triangles, {0.8f, 1, 0.8f}, {0, -1, 0},
                                                   0, kInf));
    }
    SECTION("no triangles: nothing is hit") {
        const auto bvh = batchsim::assets::build_bvh({}, {}, {});
        const auto wide = batchsim::assets::collapse_bvh4(bvh.nodes);
        check_structure(wide, bvh.triangles);
        CHECK_FALSE(
            batchsim::assets::closest_hit4(wide, bvh.triangles, {0, 0, 0}, {1, 0, 0}, 0, 1e9f));
    }
    SECTION("a spine as deep as allowed: the stack still suffices") {
        const auto bvh = deep_spine();
        REQUIRE(batchsim::assets::bvh_depth(bvh.nodes) == BATCHSIM_BVH_MAX_DEPTH);
        const auto wide = batchsim::assets::collapse_bvh4(bvh.nodes);
        check_structure(wide, bvh.triangles);
        CHECK(batchsim::assets::bvh4_stack_bound(wide) > 48);  // deep stacks are exercised
        CHECK(wide.size() < bvh.nodes.size());
        const Rays rays{{{0, 0, 0}, {11, 11, 11}}, 0.5f, 0.0f, kInf};
        CHECK(compare_with_bvh2(bvh.nodes, bvh.triangles, rays, 5, 2000) > 50);
    }
    SECTION("one level deeper is refused") {
        auto bvh = deep_spine();
        bvh.nodes.back().right_count = 0;  // the last spine node gets one more below it
        bvh.nodes.back().right = static_cast<std::uint32_t>(bvh.nodes.size());
        bvh.nodes.push_back(bvh.nodes[1]);
        CHECK_THROWS_WITH(batchsim::assets::collapse_bvh4(bvh.nodes),
                          Catch::Contains("BVH deeper than 64 levels"));
    }
}

TEST_CASE("4-wide collapse of procgen scenes: the same closest hits as the BVH2", "[bvh_wide]") {
    const auto paths = procgen_scenes();
    if (paths.empty()) WARN("no procgen scenes built (run the Python tests first): skipped");
    for (const auto& path : paths) {
        INFO(path);
        const auto scene = batchsim::assets::PackedScene::load(path);
        const auto wide = batchsim::assets::collapse_bvh4(scene.bvh_nodes());
        check_structure(wide, scene.bvh_triangles());
        const BvhNode& root = scene.bvh_nodes()[0];
        Box bounds;
        bounds.grow(Vec3{root.left_min_x, root.left_min_y, root.left_min_z});
        bounds.grow(Vec3{root.left_max_x, root.left_max_y, root.left_max_z});
        bounds.grow(Vec3{root.right_min_x, root.right_min_y, root.right_min_z});
        bounds.grow(Vec3{root.right_max_x, root.right_max_y, root.right_max_z});
        // Camera-like rays from inside the house, between a near and a far plane.
        const Rays rays{bounds, 0.0f, 0.01f, 50.0f};
        CHECK(compare_with_bvh2(scene.bvh_nodes(), scene.bvh_triangles(), rays, 9, 5000) > 3500);
    }
}
