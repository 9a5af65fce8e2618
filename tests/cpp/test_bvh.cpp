#include "assets/bvh.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "assets/packed_scene.hpp"
#include "bvh_test_scenes.hpp"
#include "core/check.hpp"

namespace {

using batchsim::assets::Bvh;
using batchsim::gpu::BvhNode;
using batchsim::gpu::kBvhLeaf;
using batchsim::test::Box;
using batchsim::test::Geometry;
using batchsim::test::room;
using batchsim::test::soup;
using batchsim::test::triangle_box;
using batchsim::test::Vec3;

Box left_box(const BvhNode& n) {
    return {{n.left_min_x, n.left_min_y, n.left_min_z}, {n.left_max_x, n.left_max_y, n.left_max_z}};
}
Box right_box(const BvhNode& n) {
    return {{n.right_min_x, n.right_min_y, n.right_min_z},
            {n.right_max_x, n.right_max_y, n.right_max_z}};
}

// Walks the tree from `node` (on `level`): children after parents, boxes holding everything
// below them, leaves within the triangles and each triangle in one leaf. Returns the
// bounds of the node's triangles; tracks the deepest level and the largest leaf.
struct Walk {
    const Bvh& bvh;
    std::vector<int> seen = std::vector<int>(bvh.triangles.size(), 0);
    std::uint32_t deepest = 0, largest_leaf = 0;

    Box child(std::uint32_t parent, bool right, std::uint32_t level) {
        const BvhNode& n = bvh.nodes[parent];
        const Box box = right ? right_box(n) : left_box(n);
        const std::uint32_t ref = right ? n.right : n.left;
        const std::uint32_t count = right ? n.right_count : n.left_count;
        Box below;
        if ((count & kBvhLeaf) != 0) {
            const std::uint32_t size = count & ~kBvhLeaf;
            REQUIRE(std::uint64_t{ref} + size <= bvh.triangles.size());
            for (std::uint32_t k = ref; k < ref + size; ++k) {
                seen[k] += 1;
                below.grow(triangle_box(bvh.triangles[k]));
            }
            largest_leaf = std::max(largest_leaf, size);
            if (size == 0) {  // only the empty half of a one-leaf root, with an inverted box
                CHECK((parent == 0 && right && bvh.nodes.size() == 1));
                CHECK((box.lo[0] > box.hi[0] && std::isfinite(box.lo[0])));
            }
        } else {
            REQUIRE((ref > parent && ref < bvh.nodes.size()));
            below = node(ref, level + 1);
        }
        if (!box.contains(below)) FAIL_CHECK("node " << parent << " child box misses triangles");
        return below;
    }
    Box node(std::uint32_t index, std::uint32_t level) {
        deepest = std::max(deepest, level);
        Box out = child(index, false, level);
        out.grow(child(index, true, level));
        return out;
    }
};

// Every structural promise of build_bvh, for `g`; returns the largest leaf.
std::uint32_t check_structure(const Geometry& g, const Bvh& bvh) {
    const std::size_t count = g.indices.size() / 3;
    REQUIRE(bvh.triangles.size() == count);
    REQUIRE(!bvh.nodes.empty());
    std::vector<int> scene_seen(count, 0);
    for (const auto& t : bvh.triangles) {
        REQUIRE(t.triangle < count);
        scene_seen[t.triangle] += 1;
        const Vec3 a = g.corner(t.triangle, 0), b = g.corner(t.triangle, 1),
                   c = g.corner(t.triangle, 2);
        const bool same = a == Vec3{t.ax, t.ay, t.az} && b == Vec3{t.bx, t.by, t.bz} &&
                          c == Vec3{t.cx, t.cy, t.cz};
        if (!same)
            FAIL_CHECK("bvh triangle of scene triangle " << t.triangle << " has other corners");
        CHECK(t.material == (3 * t.triangle < g.chunks[1].first_index ? 3u : 5u));
        CHECK(t.pad0 == 0);
    }
    CHECK(std::all_of(scene_seen.begin(), scene_seen.end(), [](int n) { return n == 1; }));
    Walk walk{bvh};
    walk.node(0, 1);
    CHECK(std::all_of(walk.seen.begin(), walk.seen.end(), [](int n) { return n == 1; }));
    CHECK(walk.deepest <= BATCHSIM_BVH_MAX_DEPTH);
    CHECK(batchsim::assets::bvh_depth(bvh.nodes) == walk.deepest);
    return walk.largest_leaf;
}

// SAH cost (traversal and intersection both 1, areas relative to the root's) of the tree
// below node `i`, unnormalised.
double sah_cost(const Bvh& bvh, std::uint32_t i) {
    const BvhNode& n = bvh.nodes[i];
    Box box = left_box(n);
    box.grow(right_box(n));
    double cost = box.half_area();
    for (const bool right : {false, true}) {
        const std::uint32_t count = right ? n.right_count : n.left_count;
        const std::uint32_t ref = right ? n.right : n.left;
        if ((count & kBvhLeaf) != 0)
            cost += (count & ~kBvhLeaf) * (right ? right_box(n) : left_box(n)).half_area();
        else
            cost += sah_cost(bvh, ref);
    }
    return cost;
}

// The same cost for a plain object-median tree (split at the median centroid along the
// widest centroid axis, leaves of at most 4).
double median_cost(const Bvh& bvh, std::vector<std::uint32_t> ids) {
    Box box, centroids;
    for (const std::uint32_t k : ids) {
        const Box t = triangle_box(bvh.triangles[k]);
        box.grow(t);
        centroids.grow(Vec3{0.5f * (t.lo[0] + t.hi[0]), 0.5f * (t.lo[1] + t.hi[1]),
                            0.5f * (t.lo[2] + t.hi[2])});
    }
    if (ids.size() <= 4) return double(ids.size()) * box.half_area();
    std::size_t axis = 0;
    for (std::size_t a = 1; a < 3; ++a)
        if (centroids.hi[a] - centroids.lo[a] > centroids.hi[axis] - centroids.lo[axis]) axis = a;
    const auto key = [&](std::uint32_t k) {
        const Box t = triangle_box(bvh.triangles[k]);
        return t.lo[axis] + t.hi[axis];
    };
    const auto middle = ids.begin() + std::ptrdiff_t(ids.size() / 2);
    std::nth_element(ids.begin(), middle, ids.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
    return box.half_area() + median_cost(bvh, {ids.begin(), middle}) +
           median_cost(bvh, {middle, ids.end()});
}

}  // namespace

TEST_CASE("bvh of random soups: every triangle once, boxes hold them, small leaves", "[bvh]") {
    for (const unsigned seed : {1u, 2u, 3u}) {
        INFO("seed " << seed);
        const Geometry g = soup(seed);
        CHECK(check_structure(g, g.build()) <= 4);
    }
}

TEST_CASE("bvh of an axis-aligned room: every triangle once, boxes hold them", "[bvh]") {
    const Geometry g = room();
    CHECK(check_structure(g, g.build()) <= 4);
}

TEST_CASE("the sah tree is cheaper than an object-median tree", "[bvh]") {
    for (const unsigned seed : {1u, 2u}) {
        const Bvh bvh = soup(seed).build();
        std::vector<std::uint32_t> all(bvh.triangles.size());
        for (std::uint32_t k = 0; k < all.size(); ++k) all[k] = k;
        const double sah = sah_cost(bvh, 0), median = median_cost(bvh, all);
        INFO("seed " << seed << ": sah " << sah << ", median " << median);
        CHECK(sah < 0.9 * median);  // about 0.7 on these soups
    }
}

TEST_CASE("bvh builds are deterministic", "[bvh]") {
    const Geometry g = soup(4);
    const Bvh a = g.build(), b = g.build();
    REQUIRE(a.nodes.size() == b.nodes.size());
    REQUIRE(a.triangles.size() == b.triangles.size());
    CHECK(std::memcmp(a.nodes.data(), b.nodes.data(), a.nodes.size() * sizeof(BvhNode)) == 0);
    CHECK(std::memcmp(a.triangles.data(), b.triangles.data(),
                      a.triangles.size() * sizeof(a.triangles[0])) == 0);
}

TEST_CASE("small and degenerate scenes build within the depth cap", "[bvh]") {
    SECTION("one triangle: a root with the leaf and an empty inverted child") {
        Geometry g;
        g.add({0, 0, 0}, {1, 0, 0}, {0, 0, 1});
        g.finish();
        const Bvh bvh = g.build();
        REQUIRE(bvh.nodes.size() == 1);
        CHECK(bvh.nodes[0].left_count == (1 | kBvhLeaf));
        CHECK(bvh.nodes[0].right_count == kBvhLeaf);
        check_structure(g, bvh);
        CHECK(batchsim::assets::bvh_depth(bvh.nodes) == 1);
    }
    SECTION("zero-area triangles only: kept") {
        Geometry g;
        for (int i = 0; i < 300; ++i) {
            const int row = i / 17;  // 17 triangles a row
            const float x = float(i % 17), z = float(row);
            if (i % 2 == 0)
                g.add({x, 0, z}, {x, 0, z}, {x + 1, 0, z});  // a repeated corner
            else
                g.add({x, 0, z}, {x, 0, z}, {x, 0, z});  // a point
        }
        g.finish();
        CHECK(check_structure(g, g.build()) <= 4);
    }
    SECTION("10,000 identical triangles: object-median splits keep leaves small") {
        Geometry g;
        for (int i = 0; i < 10000; ++i) g.add({0, 0, 0}, {1, 0, 0}, {0, 1, 0});
        g.finish();
        const Bvh bvh = g.build();
        CHECK(check_structure(g, bvh) <= 4);
        CHECK(batchsim::assets::bvh_depth(bvh.nodes) <= 13);  // 10,000 / 2^12 < 4
    }
    SECTION("no triangles: a root with two empty leaves") {
        const Bvh bvh = batchsim::assets::build_bvh({}, {}, {});
        REQUIRE(bvh.nodes.size() == 1);
        CHECK(bvh.triangles.empty());
        CHECK(bvh.nodes[0].left_count == kBvhLeaf);
        CHECK(bvh.nodes[0].right_count == kBvhLeaf);
        CHECK((bvh.nodes[0].left_min_x == 1.0f && bvh.nodes[0].left_max_x == -1.0f));
    }
}

TEST_CASE("bvh input errors are reported", "[bvh]") {
    Geometry g;
    g.add({0, 0, 0}, {1, 0, 0}, {0, 0, 1});
    g.finish();
    const auto require_invalid = [](const Geometry& bad, const std::string& needle) {
        try {
            (void)bad.build();
            FAIL("built a BVH of bad geometry");
        } catch (const batchsim::Error& error) {
            CHECK(error.kind() == batchsim::Error::Kind::InvalidArgument);
            CHECK_THAT(error.what(), Catch::Contains(needle));
        }
    };
    Geometry index = g;
    index.indices[1] = 7;
    require_invalid(index, "index 7 out of range for 3 vertices (at position 1)");
    Geometry nan = g;
    nan.vertices[2].py = std::numeric_limits<float>::quiet_NaN();
    require_invalid(nan, "vertex 2 has a non-finite position");
    Geometry partial = g;
    partial.indices.pop_back();
    require_invalid(partial, "index count 2 is not a multiple of 3");
}

// Not run by default: BATCHSIM_BVH_SCENE=path/to/scene.bsscene batchsim_tests "[.bvh-bench]"
TEST_CASE("bvh build time of a packed scene", "[.bvh-bench]") {
    const char* path = std::getenv("BATCHSIM_BVH_SCENE");
    if (path == nullptr) return;
    const auto scene = batchsim::assets::PackedScene::load(path);
    double best = 1e9;
    for (int repeat = 0; repeat < 5; ++repeat) {
        const auto start = std::chrono::steady_clock::now();
        const Bvh bvh =
            batchsim::assets::build_bvh(scene.vertices(), scene.indices(), scene.chunks());
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        best = std::min(best, took.count());
        CHECK(bvh.nodes.size() == scene.bvh_nodes().size());
    }
    WARN(scene.indices().size() / 3 << " triangles: bvh built in " << best * 1e3 << " ms, "
                                    << scene.bvh_nodes().size() << " nodes, depth "
                                    << batchsim::assets::bvh_depth(scene.bvh_nodes()));
}
