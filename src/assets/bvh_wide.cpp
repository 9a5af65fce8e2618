// Collapsing a BVH2 into 4-wide nodes; the CPU traversal is in bvh_wide_traversal.cpp.
#include "assets/bvh_wide.hpp"

#include <algorithm>
#include <limits>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::assets {
namespace {

constexpr std::uint32_t kStackEntries = BATCHSIM_BVH_MAX_DEPTH;
constexpr float kInf = std::numeric_limits<float>::infinity();

// One child of a BVH2 node: its box, and its node (inner) or triangles (leaf), encoded as
// BvhNode's left/left_count.
struct Ref {
    std::array<float, 3> lo, hi;
    std::uint32_t child = 0, count = 0;

    [[nodiscard]] bool inner() const { return (count & gpu::kBvhLeaf) == 0; }
    [[nodiscard]] bool empty() const { return count == gpu::kBvhLeaf; }
    [[nodiscard]] double half_area() const {
        const double x = double(hi[0]) - lo[0], y = double(hi[1]) - lo[1],
                     z = double(hi[2]) - lo[2];
        return x * y + y * z + z * x;
    }
};

std::array<Ref, 2> children(const BvhNode& n) {
    return {Ref{{n.left_min_x, n.left_min_y, n.left_min_z},
                {n.left_max_x, n.left_max_y, n.left_max_z},
                n.left,
                n.left_count},
            Ref{{n.right_min_x, n.right_min_y, n.right_min_z},
                {n.right_max_x, n.right_max_y, n.right_max_z},
                n.right,
                n.right_count}};
}

// Inner nodes on the longest path down from each node, itself included (children come after
// their parents: one pass from the back).
std::vector<std::uint32_t> heights(std::span<const BvhNode> nodes) {
    std::vector<std::uint32_t> height(nodes.size(), 1);
    for (std::size_t i = nodes.size(); i-- > 0;)
        for (const Ref& ref : children(nodes[i]))
            if (ref.inner()) height[i] = std::max(height[i], height[ref.child] + 1);
    return height;
}

void set_slot(Bvh4Node& node, std::size_t slot, const Ref& ref, std::uint32_t child) {
    // An empty leaf's box (min 1 > max -1) would read as a real box in the slab test: it
    // becomes the point at +infinity instead.
    const auto& lo = ref.empty() ? std::array{kInf, kInf, kInf} : ref.lo;
    const auto& hi = ref.empty() ? std::array{kInf, kInf, kInf} : ref.hi;
    node.lo_x[slot] = lo[0], node.lo_y[slot] = lo[1], node.lo_z[slot] = lo[2];
    node.hi_x[slot] = hi[0], node.hi_y[slot] = hi[1], node.hi_z[slot] = hi[2];
    node.child[slot] = child;
    node.count[slot] = ref.inner() ? 0 : ref.count;
}

class Collapser {
public:
    explicit Collapser(std::span<const BvhNode> nodes) : nodes_(nodes), height_(heights(nodes)) {}

    // Appends the 4-wide node of BVH2 node `node` and, depth first, those below it; `stack`:
    // the most entries the stack can hold on arriving there. Returns its index.
    std::uint32_t collapse(std::uint32_t node, std::uint32_t stack) {
        const std::vector<Ref> refs = pick(node, stack);
        const auto index = static_cast<std::uint32_t>(out_.size());
        out_.emplace_back();
        const std::uint32_t below = stack + pushes(refs);
        for (std::size_t slot = 0; slot < 4; ++slot) {
            const Ref ref = slot < refs.size() ? refs[slot] : Ref{{}, {}, 0, gpu::kBvhLeaf};
            const std::uint32_t child = ref.inner() ? collapse(ref.child, below) : ref.child;
            set_slot(out_[index], slot, ref, child);  // not a reference: out_ grew
        }
        return index;
    }
    [[nodiscard]] bool fits_at_root() const { return fits(as_vector(children(nodes_[0])), 0); }
    std::vector<Bvh4Node> take() { return std::move(out_); }

private:
    static std::vector<Ref> as_vector(const std::array<Ref, 2>& two) { return {two[0], two[1]}; }

    // Stack entries a node with these children pushes at most: all it hits but the nearest
    // (leaves too: they wait on the stack for their turn).
    static std::uint32_t pushes(const std::vector<Ref>& refs) {
        const auto used =
            std::count_if(refs.begin(), refs.end(), [](auto& r) { return !r.empty(); });
        return used > 0 ? static_cast<std::uint32_t>(used - 1) : 0;
    }
    // Whether a walk below these children can always keep within the stack: at worst each
    // inner child is then collapsed no further, a BVH2 walk that pushes one entry per level.
    [[nodiscard]] bool fits(const std::vector<Ref>& refs, std::uint32_t stack) const {
        std::uint32_t deepest = 0;
        for (const Ref& r : refs)
            if (r.inner()) deepest = std::max(deepest, height_[r.child]);
        return stack + pushes(refs) + deepest <= kStackEntries;
    }
    // The node's children: its BVH2 children, then while fewer than four the inner one of
    // largest area replaced by its own two children, where the stack allows.
    [[nodiscard]] std::vector<Ref> pick(std::uint32_t node, std::uint32_t stack) const {
        std::vector<Ref> refs = as_vector(children(nodes_[node]));
        while (refs.size() < 4) {
            std::optional<std::size_t> best;
            for (std::size_t i = 0; i < refs.size(); ++i) {
                if (!refs[i].inner() || (best && refs[i].half_area() <= refs[*best].half_area()))
                    continue;
                if (fits(opened(refs, i), stack)) best = i;
            }
            if (!best) break;
            refs = opened(refs, *best);
        }
        return refs;
    }
    // `refs` with child i replaced by its two children, in its place.
    [[nodiscard]] std::vector<Ref> opened(const std::vector<Ref>& refs, std::size_t i) const {
        std::vector<Ref> out(refs.begin(), refs.begin() + std::ptrdiff_t(i));
        for (const Ref& r : children(nodes_[refs[i].child])) out.push_back(r);
        out.insert(out.end(), refs.begin() + std::ptrdiff_t(i) + 1, refs.end());
        return out;
    }

    std::span<const BvhNode> nodes_;
    std::vector<std::uint32_t> height_;
    std::vector<Bvh4Node> out_;
};

}  // namespace

std::vector<Bvh4Node> collapse_bvh4(std::span<const BvhNode> nodes) {
    if (nodes.empty()) return {};
    Collapser collapser(nodes);
    BATCHSIM_CHECK(collapser.fits_at_root(), InvalidArgument,
                   str("BVH deeper than ", kStackEntries, " levels"));
    collapser.collapse(0, 0);
    std::vector<Bvh4Node> out = collapser.take();
    BATCHSIM_CHECK(out.size() <= gpu::kBvh4MaxNodes, InvalidArgument,
                   str("BVH of ", out.size(), " 4-wide nodes; at most ", gpu::kBvh4MaxNodes));
    return out;
}

std::uint32_t bvh4_stack_bound(std::span<const Bvh4Node> nodes) {
    std::vector<std::uint32_t> stack(nodes.size(), 0);  // parents come first: one pass
    std::uint32_t most = 0;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const auto used = static_cast<std::uint32_t>(
            4 - std::count(nodes[i].count.begin(), nodes[i].count.end(), gpu::kBvhLeaf));
        const std::uint32_t below = stack[i] + (used > 0 ? used - 1 : 0);
        for (std::size_t slot = 0; slot < 4; ++slot)
            if (nodes[i].count[slot] == 0) stack[nodes[i].child[slot]] = below;
        most = std::max(most, below);
    }
    return most;
}

}  // namespace batchsim::assets
