// Validation of a packed scene's BVH sections: what trace.comp relies on to stay inside its
// buffers and its stack, in one pass over the triangles and one over the nodes (parents
// come before their children, so each node's level is known when it is reached).
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "assets/packed_scene_format.hpp"
#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::assets::packed {
namespace {

using gpu::BvhNode;
using gpu::BvhTriangle;

constexpr std::uint32_t kNone = 0xffffffffu;

// No inf or NaN among `values`: x * 0 is 0 for finite x and NaN otherwise, so one
// comparison tests a whole record (this runs for every node and triangle of every scene).
template <typename... Floats>
bool all_finite(Floats... values) {
    return ((values * 0.0f) + ... + 0.0f) == 0.0f;
}

class BvhCheck {
public:
    BvhCheck(const Validated& v, std::string_view origin)
        : nodes_(as_array<BvhNode>(v.section(SectionKind::BvhNodes))),
          triangles_(as_array<BvhTriangle>(v.section(SectionKind::BvhTriangles))),
          triangle_count_(v.info.index_count / 3),
          material_count_(v.info.material_count),
          origin_(origin) {}

    void run() {
        if (nodes_.empty()) fail("section 'bvh nodes' is empty: a BVH has at least its root");
        if (nodes_.size() >= kNone) fail(str("bvh of ", nodes_.size(), " nodes: at most 2^32 - 1"));
        if (triangles_.size() != triangle_count_)
            fail(str("section 'bvh triangles' holds ", triangles_.size(),
                     " triangles, expected index count / 3 = ", triangle_count_));
        check_triangles();
        level_.assign(nodes_.size(), 0);
        level_[0] = 1;
        covered_.assign(triangles_.size(), 0);
        for (std::uint32_t i = 0; i < nodes_.size(); ++i) check_node(i);
        for (std::size_t k = 0; k < covered_.size(); ++k) {
            if (!covered_[k]) fail(str("bvh triangle ", k, " is in no leaf"));
        }
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw Error(Error::Kind::CorruptData, str("packed scene ", origin_, ": ", what));
    }

    // Scene triangle and material in range, each scene triangle once, finite corners. The
    // loop only tests; describe() words the first failure.
    void check_triangles() const {
        std::vector<std::uint8_t> seen(triangle_count_, 0);
        for (std::uint32_t k = 0; k < triangles_.size(); ++k) {
            const BvhTriangle& t = triangles_[k];
            const bool sound = t.triangle < triangle_count_ && t.material < material_count_ &&
                               t.pad0 == 0 &&
                               all_finite(t.ax, t.ay, t.az, t.bx, t.by, t.bz, t.cx, t.cy, t.cz);
            if (!sound || seen[t.triangle]) fail(describe(k));
            seen[t.triangle] = 1;
        }
    }

    // What is wrong with bvh triangle k (found faulty by check_triangles).
    [[nodiscard]] std::string describe(std::uint32_t k) const {
        const BvhTriangle& t = triangles_[k];
        if (t.triangle >= triangle_count_)
            return str("bvh triangle ", k, " names scene triangle ", t.triangle,
                       ", out of range for ", triangle_count_, " triangles");
        if (t.material >= material_count_)
            return str("bvh triangle ", k, ": material ", t.material, " >= ", material_count_,
                       " materials");
        if (t.pad0 != 0) return str("bvh triangle ", k, " padding is not zero");
        for (const float value : {t.ax, t.ay, t.az, t.bx, t.by, t.bz, t.cx, t.cy, t.cz}) {
            if (!std::isfinite(value))
                return str("bvh triangle ", k, " has a non-finite corner (", value, ")");
        }
        std::uint32_t first = 0;
        while (triangles_[first].triangle != t.triangle) ++first;
        return str("bvh triangles ", first, " and ", k, " both hold scene triangle ", t.triangle);
    }

    void check_node(std::uint32_t i) {
        if (level_[i] == 0) fail(str("bvh node ", i, " is no node's child"));
        const BvhNode& n = nodes_[i];
        const bool finite = all_finite(n.left_min_x, n.left_min_y, n.left_min_z, n.left_max_x,
                                       n.left_max_y, n.left_max_z, n.right_min_x, n.right_min_y,
                                       n.right_min_z, n.right_max_x, n.right_max_y, n.right_max_z);
        if (!finite) fail(describe_boxes(n, i));
        check_child(i, "left", n.left, n.left_count);
        check_child(i, "right", n.right, n.right_count);
    }

    // Which box of node i is not finite (found so by check_node).
    static std::string describe_boxes(const BvhNode& n, std::uint32_t i) {
        const std::array<float, 6> left{n.left_min_x, n.left_min_y, n.left_min_z,
                                        n.left_max_x, n.left_max_y, n.left_max_z};
        const std::array<float, 6> right{n.right_min_x, n.right_min_y, n.right_min_z,
                                         n.right_max_x, n.right_max_y, n.right_max_z};
        for (const auto& [side, box] : {std::pair{"left", left}, std::pair{"right", right}}) {
            for (const float value : box) {
                if (!std::isfinite(value))
                    return str("bvh node ", i, " has a non-finite ", side, " box (", value, ")");
            }
        }
        return str("bvh node ", i, " has a non-finite box");
    }

    void check_child(std::uint32_t i, const char* side, std::uint32_t ref, std::uint32_t count) {
        if ((count & gpu::kBvhLeaf) != 0) {
            check_leaf(i, side, ref, count & ~gpu::kBvhLeaf);
            return;
        }
        if (ref <= i || ref >= nodes_.size())
            fail(str("bvh node ", i, ": ", side, " child ", ref, " is not in (", i, ", ",
                     nodes_.size(), "): children come after their parent"));
        if (level_[ref] != 0) fail(str("bvh node ", ref, " is the child of two nodes"));
        if (level_[i] + 1 > BATCHSIM_BVH_MAX_DEPTH)
            fail(str("bvh is deeper than ", BATCHSIM_BVH_MAX_DEPTH, " levels (node ", ref,
                     " is on level ", level_[i] + 1, ")"));
        level_[ref] = static_cast<std::uint8_t>(level_[i] + 1);
    }

    // Marks the leaf's triangles: each may be in one leaf only, so this stays linear.
    void check_leaf(std::uint32_t i, const char* side, std::uint32_t first, std::uint32_t count) {
        if (std::uint64_t{first} + count > triangles_.size())
            fail(str("bvh node ", i, ": ", side, " leaf [", first, ", +", count,
                     ") extends past the ", triangles_.size(), " bvh triangles"));
        for (std::uint32_t k = first; k < first + count; ++k) {
            if (covered_[k])
                fail(str("bvh triangle ", k, " is in two leaves (again in node ", i, "'s ", side,
                         " leaf)"));
            covered_[k] = 1;
        }
    }

    std::span<const BvhNode> nodes_;
    std::span<const BvhTriangle> triangles_;
    std::size_t triangle_count_;
    std::size_t material_count_;
    std::string_view origin_;
    std::vector<std::uint8_t> level_;    // per node: root 1, 0 until a parent names it
    std::vector<std::uint8_t> covered_;  // per bvh triangle: in a leaf already
};

}  // namespace

void validate_bvh(const Validated& validated, std::string_view origin) {
    BvhCheck(validated, origin).run();
}

}  // namespace batchsim::assets::packed
