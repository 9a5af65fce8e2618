#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "assets/bvh.hpp"
#include "assets/packed_scene.hpp"
#include "assets/packed_scene_format.hpp"
#include "assets/packed_scene_writer.hpp"
#include "core/strings.hpp"
#include "packed_scene_test_utils.hpp"

namespace {

using batchsim::str;
using batchsim::assets::PackedScene;
using batchsim::assets::SceneData;
using batchsim::assets::packed::SectionKind;
using batchsim::gpu::BvhNode;
using batchsim::gpu::BvhTriangle;
using batchsim::gpu::kBvhLeaf;
using batchsim::test::edit_element;
using batchsim::test::elements;
using batchsim::test::require_structural;
using batchsim::test::with;

// A 12 x 12 m floor of unit quads (288 triangles, one material): a BVH with inner nodes.
SceneData grid_scene() {
    SceneData scene;
    constexpr int kSide = 12;
    for (int z = 0; z <= kSide; ++z) {
        for (int x = 0; x <= kSide; ++x)
            scene.vertices.push_back({float(x), 0, float(z), 0, 1, 0, 0, 0});
    }
    for (std::uint32_t z = 0; z < kSide; ++z) {
        for (std::uint32_t x = 0; x < kSide; ++x) {
            const std::uint32_t a = z * (kSide + 1) + x, b = a + 1, c = a + kSide + 1, d = c + 1;
            scene.indices.insert(scene.indices.end(), {a, c, b, b, c, d});
        }
    }
    const auto count = static_cast<std::uint32_t>(scene.indices.size());
    scene.chunks = {{0, 0, 0, 0, kSide, 0, kSide, count, 0, 0, 0, 0}};
    scene.materials = {{0.5f, 0.5f, 0.5f, 1, batchsim::gpu::kNoTexture, 0, 0, 0}};
    scene.bounds = {{0, 0, 0}, {kSide, 0, kSide}};
    scene.source = "synthetic/grid.glb";
    return scene;
}

constexpr std::size_t kTriangles = 288;

bool is_leaf(std::uint32_t count) {
    return (count & kBvhLeaf) != 0;
}

// The first node whose left child is an inner node.
std::uint32_t first_inner_parent(const std::vector<BvhNode>& nodes) {
    for (std::uint32_t i = 0; i < nodes.size(); ++i)
        if (!is_leaf(nodes[i].left_count)) return i;
    FAIL("no inner child");
    return 0;
}

// The first two nodes whose left children are leaves.
std::pair<std::uint32_t, std::uint32_t> two_left_leaves(const std::vector<BvhNode>& nodes) {
    std::optional<std::uint32_t> first;
    for (std::uint32_t i = 0; i < nodes.size(); ++i) {
        if (!is_leaf(nodes[i].left_count)) continue;
        if (first) return {*first, i};
        first = i;
    }
    FAIL("fewer than two left leaves");
    return {};
}

}  // namespace

TEST_CASE("a packed scene's bvh is sound and matches its geometry", "[packed_scene_validate_bvh]") {
    const SceneData scene = grid_scene();
    const PackedScene loaded = PackedScene::from_bytes(batchsim::assets::pack_scene(scene));
    REQUIRE(loaded.bvh_triangles().size() == kTriangles);
    CHECK(loaded.bvh_nodes().size() > 64);  // enough nodes for the chain below
    CHECK(batchsim::assets::bvh_depth(loaded.bvh_nodes()) <= BATCHSIM_BVH_MAX_DEPTH);
    const auto hit = batchsim::assets::closest_hit(loaded.bvh_nodes(), loaded.bvh_triangles(),
                                                   {3.3f, 1.5f, 7.6f}, {0, -1, 0}, 0.01f, 100);
    REQUIRE(hit);
    CHECK(hit->t == Approx(1.5f));
}

TEST_CASE("bvh corruption is caught behind the checksums", "[packed_scene_validate_bvh]") {
    const auto good = batchsim::assets::pack_scene(grid_scene());
    const auto nodes = elements<BvhNode>(good, SectionKind::BvhNodes);
    const std::size_t node_count = nodes.size();
    const std::uint32_t parent = first_inner_parent(nodes);
    const auto edit_node = [&](std::uint32_t i, auto edit) {
        return with<BvhNode>(good, SectionKind::BvhNodes, i, edit);
    };

    require_structural(edit_node(parent, [&](BvhNode& n) { n.left = std::uint32_t(node_count); }),
                       str("bvh node ", parent, ": left child ", node_count, " is not in (", parent,
                           ", ", node_count, "): children come after their parent"));
    require_structural(edit_node(parent, [&](BvhNode& n) { n.left = parent; }),
                       str("left child ", parent, " is not in (", parent, ", "));
    require_structural(edit_node(0, [&](BvhNode& n) { n.right = n.left, n.right_count = 0; }),
                       "is the child of two nodes");

    const auto leaves = two_left_leaves(nodes);
    const std::uint32_t a = leaves.first, b = leaves.second;
    require_structural(
        edit_node(a, [](BvhNode& n) { n.left = kTriangles - 2, n.left_count = 3 | kBvhLeaf; }),
        str("bvh node ", a, ": left leaf [", kTriangles - 2, ", +3) extends past the ", kTriangles,
            " bvh triangles"));
    require_structural(edit_node(b, [&](BvhNode& n) { n.left = nodes[a].left; }),
                       str("bvh triangle ", nodes[a].left, " is in two leaves (again in node ", b,
                           "'s left leaf)"));
    require_structural(edit_node(b, [&](BvhNode& n) { n.left_count = 0 | kBvhLeaf; }),
                       str("bvh triangle ", nodes[b].left, " is in no leaf"));
    require_structural(edit_node(1, [](BvhNode& n) { n.right_max_y = INFINITY; }),
                       "bvh node 1 has a non-finite right box (inf)");

    const auto edit_triangle = [&](std::size_t i, auto edit) {
        return with<BvhTriangle>(good, SectionKind::BvhTriangles, i, edit);
    };
    require_structural(edit_triangle(5, [](BvhTriangle& t) { t.triangle = kTriangles; }),
                       "bvh triangle 5 names scene triangle 288, out of range for 288 triangles");
    const auto triangles = elements<BvhTriangle>(good, SectionKind::BvhTriangles);
    require_structural(
        edit_triangle(9, [&](BvhTriangle& t) { t.triangle = triangles[4].triangle; }),
        str("bvh triangles 4 and 9 both hold scene triangle ", triangles[4].triangle));
    require_structural(edit_triangle(7, [](BvhTriangle& t) { t.material = 1; }),
                       "bvh triangle 7: material 1 >= 1 materials");
    require_structural(
        edit_triangle(3, [](BvhTriangle& t) { t.by = std::numeric_limits<float>::quiet_NaN(); }),
        "bvh triangle 3 has a non-finite corner (nan)");
    require_structural(edit_triangle(2, [](BvhTriangle& t) { t.pad0 = 1; }),
                       "bvh triangle 2 padding is not zero");
}

TEST_CASE("a bvh deeper than the traversal stack is rejected", "[packed_scene_validate_bvh]") {
    // Node i's left child is node i + 1; its right child an empty leaf; node 64 holds every
    // triangle, at level 65.
    auto file = batchsim::assets::pack_scene(grid_scene());
    for (std::uint32_t i = 0; i <= BATCHSIM_BVH_MAX_DEPTH; ++i) {
        edit_element<BvhNode>(file, SectionKind::BvhNodes, i, [&](BvhNode& n) {
            const bool last = i == BATCHSIM_BVH_MAX_DEPTH;
            n.left = last ? 0 : i + 1;
            n.left_count = last ? std::uint32_t(kTriangles) | kBvhLeaf : 0;
            n.right = 0, n.right_count = kBvhLeaf;
        });
    }
    require_structural(file, "bvh is deeper than 64 levels (node 64 is on level 65)");
}

TEST_CASE("a file without bvh sections is rejected", "[packed_scene_validate_bvh]") {
    auto file = batchsim::assets::pack_scene(grid_scene());
    auto [index, entry] = batchsim::test::find_entry(file, SectionKind::BvhNodes);
    entry.kind = static_cast<std::uint32_t>(SectionKind::NavMesh);
    entry.element_size = 1;
    batchsim::test::set_entry(file, index, entry);
    require_structural(file, "missing required section 'bvh nodes'");
}
