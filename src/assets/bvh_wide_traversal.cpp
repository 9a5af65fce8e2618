// The CPU traversal of a 4-wide BVH: the twin of trace.comp's, step for step, for tests.
#include <cmath>
#include <limits>
#include <utility>

#include "assets/bvh_wide.hpp"
#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::assets {
namespace {

using Vec3 = std::array<float, 3>;
constexpr std::uint32_t kStackEntries = BATCHSIM_BVH_MAX_DEPTH;
constexpr float kMiss = std::numeric_limits<float>::infinity();
constexpr std::uint32_t kNoNode = 0xffffffffu;
// Boxes are entered up to this factor beyond the closest hit so far (as trace.comp): a
// triangle in a box's face (walls, floors) can be hit a few ulps before the rounded slab
// distance, and a closer one must not be pruned for that.
constexpr float kReach = 1.0f + 0x1p-16f;

struct Ray {
    Vec3 origin, direction;
    Vec3 inverse;  // 1 / direction, zeros nudged to stay finite
    Vec3 shift;    // -origin * inverse: a slab distance is then one fma
};

Ray make_ray(const Vec3& origin, const Vec3& direction) {
    Ray ray{origin, direction, {}, {}};
    for (std::size_t a = 0; a < 3; ++a) {
        ray.inverse[a] = 1.0f / (std::abs(direction[a]) < 1e-30f ? 1e-30f : direction[a]);
        ray.shift[a] = -origin[a] * ray.inverse[a];
    }
    return ray;
}

// A node's children as trace.comp holds them: entry distance (kMiss where the ray misses the
// box within [t_min, t_max]) and stack entry.
struct Children {
    std::array<float, 4> t;
    std::array<std::uint32_t, 4> entry;

    void order(std::size_t a, std::size_t b) {  // one exchange of the sorting network
        if (t[b] < t[a]) std::swap(t[a], t[b]), std::swap(entry[a], entry[b]);
    }
    void sort() { order(0, 1), order(2, 3), order(0, 2), order(1, 3), order(1, 2); }
};

float slab(float plane, std::size_t axis, const Ray& ray) {
    return std::fma(plane, ray.inverse[axis], ray.shift[axis]);
}

// `node` is n's index, for its leaves' stack entries.
Children enter_children(const Ray& ray, const Bvh4Node& n, std::uint32_t node, float t_min,
                        float t_max) {
    Children c{};
    for (std::uint32_t i = 0; i < 4; ++i) {
        c.entry[i] = n.count[i] == 0 ? n.child[i] : gpu::kBvh4LeafEntry | (node * 4 + i);
        const float x0 = slab(n.lo_x[i], 0, ray), x1 = slab(n.hi_x[i], 0, ray);
        const float y0 = slab(n.lo_y[i], 1, ray), y1 = slab(n.hi_y[i], 1, ray);
        const float z0 = slab(n.lo_z[i], 2, ray), z1 = slab(n.hi_z[i], 2, ray);
        const float enter = std::max(std::max(std::min(x0, x1), std::min(y0, y1)),
                                     std::max(std::min(z0, z1), t_min));
        const float leave = std::min(std::min(std::max(x0, x1), std::max(y0, y1)),
                                     std::min(std::max(z0, z1), t_max));
        c.t[i] = kMiss;
        if (enter <= leave) c.t[i] = enter;
    }
    return c;
}

class Walk {
public:
    Walk(std::span<const Bvh4Node> nodes, std::span<const BvhTriangle> triangles,
         const Vec3& origin, const Vec3& direction, float t_min, float t_max)
        : nodes_(nodes),
          triangles_(triangles),
          ray_(make_ray(origin, direction)),
          t_min_(t_min),
          t_max_(t_max) {}

    // The children the ray enters, sorted by entry distance, go on the stack farthest first
    // but for the nearest: returned, to be visited next (else the top of the stack).
    std::uint32_t visit_node(std::uint32_t node) {
        Children c = enter_children(ray_, nodes_[node], node, t_min_, reach());
        c.sort();
        std::uint32_t next = kNoNode;
        float next_t = 0;
        for (std::size_t k = 4; k-- > 0;) {
            if (!in_reach(c.t[k])) continue;
            if (next != kNoNode) push(next, next_t);
            next = c.entry[k], next_t = c.t[k];
        }
        return next != kNoNode ? next : pop();
    }
    // Intersects the leaf of a stack entry; returns the top of the stack.
    std::uint32_t visit_leaf(std::uint32_t entry) {
        const Bvh4Node& node = nodes_[(entry & ~gpu::kBvh4LeafEntry) / 4];
        const std::uint32_t first = node.child[entry % 4], count = node.count[entry % 4];
        for (std::uint32_t i = first; i < first + (count & ~gpu::kBvhLeaf); ++i) {
            const auto candidate =
                intersect_triangle(triangles_, i, ray_.origin, ray_.direction, t_min_, t_far());
            if (candidate && (!hit_ || candidate->t < hit_->t)) hit_ = candidate;
        }
        return pop();
    }
    [[nodiscard]] const std::optional<BvhHit>& hit() const { return hit_; }

private:
    [[nodiscard]] float t_far() const { return hit_ ? hit_->t : t_max_; }
    [[nodiscard]] float reach() const { return t_far() * kReach; }
    [[nodiscard]] bool in_reach(float t) const { return t != kMiss && t <= reach(); }
    // The top entry still in reach, dropping those a hit since has put beyond it.
    std::uint32_t pop() {
        while (top_ > 0) {
            --top_;
            if (in_reach(stack_t_[top_])) return stack_[top_];
        }
        return kNoNode;
    }
    void push(std::uint32_t entry, float t) {
        BATCHSIM_CHECK(top_ < stack_.size(), Internal,
                       str("4-wide BVH traversal needs more than ", kStackEntries, " entries"));
        stack_[top_] = entry, stack_t_[top_] = t;
        ++top_;
    }

    std::span<const Bvh4Node> nodes_;
    std::span<const BvhTriangle> triangles_;
    Ray ray_;
    float t_min_, t_max_;
    std::optional<BvhHit> hit_;
    std::array<std::uint32_t, kStackEntries> stack_{};  // entries, and where their boxes
    std::array<float, kStackEntries> stack_t_{};        // are entered
    std::size_t top_ = 0;
};

}  // namespace

std::optional<BvhHit> closest_hit4(std::span<const Bvh4Node> nodes,
                                   std::span<const BvhTriangle> triangles, const Vec3& origin,
                                   const Vec3& direction, float t_min, float t_max) {
    if (nodes.empty()) return std::nullopt;
    Walk walk(nodes, triangles, origin, direction, t_min, t_max);
    // As trace.comp: inner nodes until a leaf comes up, then that leaf (on a GPU the rays of
    // a warp meet at the leaf loop together).
    for (std::uint32_t entry = 0; entry != kNoNode;) {
        while ((entry & gpu::kBvh4LeafEntry) == 0) entry = walk.visit_node(entry);
        if (entry != kNoNode) entry = walk.visit_leaf(entry);
    }
    return walk.hit();
}

}  // namespace batchsim::assets
