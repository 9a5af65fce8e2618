// The CPU traversal of a BVH: the twin of trace.comp's, for tests and tools.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

#include "assets/bvh.hpp"
#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::assets {
namespace {

using Vec3 = std::array<float, 3>;
constexpr std::uint32_t kMaxDepth = BATCHSIM_BVH_MAX_DEPTH;

struct Ray {
    Vec3 origin, direction, inverse;  // inverse: 1 / direction, zeros nudged to stay finite
};

Ray make_ray(const Vec3& origin, const Vec3& direction) {
    Ray ray{origin, direction, {}};
    // A zero component would make 0 * inf = NaN in the slab test; 1e-30 keeps it finite.
    for (std::size_t a = 0; a < 3; ++a)
        ray.inverse[a] = 1.0f / (std::abs(direction[a]) < 1e-30f ? 1e-30f : direction[a]);
    return ray;
}

Vec3 sub(const Vec3& a, const Vec3& b) {
    return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
Vec3 cross(const Vec3& a, const Vec3& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
float dot(const Vec3& a, const Vec3& b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// Where the ray enters the box within [t_min, t_max], or none.
std::optional<float> enter_box(const Ray& ray, const Vec3& lo, const Vec3& hi, float t_min,
                               float t_max) {
    float enter = t_min, leave = t_max;
    for (std::size_t a = 0; a < 3; ++a) {
        const float t0 = (lo[a] - ray.origin[a]) * ray.inverse[a];
        const float t1 = (hi[a] - ray.origin[a]) * ray.inverse[a];
        enter = std::max(enter, std::min(t0, t1));
        leave = std::min(leave, std::max(t0, t1));
    }
    if (enter <= leave) return enter;
    return std::nullopt;
}

// One ray's walk: the closest hit so far bounds every later box and triangle test.
class Traversal {
public:
    Traversal(std::span<const BvhTriangle> triangles, const Vec3& origin, const Vec3& direction,
              float t_min, float t_max)
        : triangles_(triangles), ray_(make_ray(origin, direction)), t_min_(t_min), t_max_(t_max) {}

    // One child of a node: a leaf the ray enters is intersected at once; for an inner child
    // it enters, returns where, to visit it later.
    std::optional<float> visit(const Vec3& lo, const Vec3& hi, std::uint32_t ref,
                               std::uint32_t count) {
        const std::optional<float> enter = enter_box(ray_, lo, hi, t_min_, t_far());
        if (!enter || (count & gpu::kBvhLeaf) == 0) return enter;
        for (std::uint32_t i = ref; i < ref + (count & ~gpu::kBvhLeaf); ++i) {
            const auto candidate =
                intersect_triangle(triangles_, i, ray_.origin, ray_.direction, t_min_, t_far());
            if (candidate && (!hit_ || candidate->t < hit_->t)) hit_ = candidate;
        }
        return std::nullopt;
    }
    // Drops an entry point that a hit found since has put out of reach.
    void prune(std::optional<float>& enter) const {
        if (enter && *enter > t_far()) enter.reset();
    }
    [[nodiscard]] float t_far() const { return hit_ ? hit_->t : t_max_; }
    [[nodiscard]] const std::optional<BvhHit>& hit() const { return hit_; }

private:
    std::span<const BvhTriangle> triangles_;
    Ray ray_;
    float t_min_, t_max_;
    std::optional<BvhHit> hit_;
};

}  // namespace

std::uint32_t bvh_depth(std::span<const BvhNode> nodes) {
    std::vector<std::uint32_t> level(nodes.size(), 1);  // parents come first: one pass
    std::uint32_t deepest = nodes.empty() ? 0 : 1;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        for (const auto& [child, count] : {std::pair{nodes[i].left, nodes[i].left_count},
                                           std::pair{nodes[i].right, nodes[i].right_count}}) {
            if ((count & gpu::kBvhLeaf) != 0) continue;
            assert(child > i && child < nodes.size());
            level[child] = level[i] + 1;
            deepest = std::max(deepest, level[child]);
        }
    }
    return deepest;
}

std::optional<BvhHit> intersect_triangle(std::span<const BvhTriangle> triangles,
                                         std::uint32_t index, const Vec3& origin,
                                         const Vec3& direction, float t_min, float t_max) {
    const BvhTriangle& tri = triangles[index];
    const Vec3 a{tri.ax, tri.ay, tri.az};
    const Vec3 e1 = sub({tri.bx, tri.by, tri.bz}, a), e2 = sub({tri.cx, tri.cy, tri.cz}, a);
    const Vec3 p = cross(direction, e2);
    const float det = dot(e1, p);
    if (det == 0.0f) return std::nullopt;  // parallel to the plane, or zero area
    const float inv_det = 1.0f / det;
    const Vec3 s = sub(origin, a);
    const float b1 = dot(s, p) * inv_det;
    if (!(b1 >= 0.0f && b1 <= 1.0f)) return std::nullopt;
    const Vec3 q = cross(s, e1);
    const float b2 = dot(direction, q) * inv_det;
    if (!(b2 >= 0.0f && b1 + b2 <= 1.0f)) return std::nullopt;
    const float t = dot(e2, q) * inv_det;
    if (!(t >= t_min && t <= t_max)) return std::nullopt;
    return BvhHit{index, t, b1, b2};
}

std::optional<BvhHit> closest_hit(std::span<const BvhNode> nodes,
                                  std::span<const BvhTriangle> triangles, const Vec3& origin,
                                  const Vec3& direction, float t_min, float t_max) {
    if (nodes.empty()) return std::nullopt;
    Traversal walk(triangles, origin, direction, t_min, t_max);
    std::array<std::uint32_t, kMaxDepth> stack{};  // one entry per level at most
    std::size_t top = 0;
    std::uint32_t node = 0;
    for (;;) {
        const BvhNode& n = nodes[node];
        std::optional<float> left =
            walk.visit({n.left_min_x, n.left_min_y, n.left_min_z},
                       {n.left_max_x, n.left_max_y, n.left_max_z}, n.left, n.left_count);
        std::optional<float> right =
            walk.visit({n.right_min_x, n.right_min_y, n.right_min_z},
                       {n.right_max_x, n.right_max_y, n.right_max_z}, n.right, n.right_count);
        walk.prune(left);  // the right leaf may have come closer
        walk.prune(right);
        if (left && right) {
            const bool left_first = *left <= *right;
            BATCHSIM_CHECK(top < stack.size(), InvalidArgument,
                           str("BVH deeper than ", kMaxDepth, " levels"));
            stack[top++] = left_first ? n.right : n.left;
            node = left_first ? n.left : n.right;
        } else if (left || right) {
            node = left ? n.left : n.right;
        } else if (top > 0) {
            node = stack[--top];
        } else {
            return walk.hit();
        }
    }
}

}  // namespace batchsim::assets
