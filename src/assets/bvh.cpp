// Top-down binned SAH build (Wald 2007) of two-box BVH nodes; the CPU traversal is in
// bvh_traversal.cpp.
#include "assets/bvh.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::assets {
namespace {

using Vec3 = std::array<float, 3>;

// Triangles a leaf holds when the builder has the choice: few enough that the rays of a
// warp finish a leaf together, and the SAH rarely wants larger leaves at these cost ratios.
constexpr std::uint32_t kMaxLeafTriangles = 4;
// Centroid bins per axis: beyond 32 the SAH quality barely moves, the cost does.
constexpr std::uint32_t kBins = 32;
// SAH costs of visiting a node and of testing a triangle: a node (two boxes, 64 bytes) and
// a triangle (48 bytes, Moller-Trumbore) cost about the same on a GPU.
constexpr double kTraversalCost = 1.0;
constexpr double kIntersectionCost = 1.0;
constexpr std::uint32_t kMaxDepth = BATCHSIM_BVH_MAX_DEPTH;
constexpr float kInf = std::numeric_limits<float>::infinity();

struct Box {
    Vec3 lo{kInf, kInf, kInf};
    Vec3 hi{-kInf, -kInf, -kInf};

    void grow(const Vec3& p) {
        for (std::size_t a = 0; a < 3; ++a)
            lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
    }
    void grow(const Box& b) {  // not through grow(b.lo): an empty b has lo > hi
        for (std::size_t a = 0; a < 3; ++a)
            lo[a] = std::min(lo[a], b.lo[a]), hi[a] = std::max(hi[a], b.hi[a]);
    }
    // Half the surface area, in double so that huge scenes cannot overflow it.
    [[nodiscard]] double half_area() const {
        const double x = double(hi[0]) - lo[0], y = double(hi[1]) - lo[1],
                     z = double(hi[2]) - lo[2];
        return x * y + y * z + z * x;
    }
};

// Triangles [begin, end) of the builder's order, with their bounds and centroid bounds.
struct Range {
    std::uint32_t begin = 0, end = 0;
    Box bounds, centroids;
    [[nodiscard]] std::uint32_t size() const { return end - begin; }
};

// Left gets the triangles whose centroid falls in bins [0, bin) of `axis`.
struct Split {
    std::uint32_t axis = 0, bin = 0;
    double cost = 0;
};

struct Bin {
    std::uint32_t count = 0;
    Box bounds;
};

void check_geometry(std::span<const Vertex> vertices, std::span<const std::uint32_t> indices) {
    BATCHSIM_CHECK(indices.size() % 3 == 0, InvalidArgument,
                   str("index count ", indices.size(), " is not a multiple of 3"));
    BATCHSIM_CHECK(indices.size() / 3 < gpu::kBvhLeaf, InvalidArgument,
                   str(indices.size() / 3, " triangles: a BVH holds fewer than 2^31"));
    for (std::size_t i = 0; i < indices.size(); ++i) {
        BATCHSIM_CHECK(indices[i] < vertices.size(), InvalidArgument,
                       str("index ", indices[i], " out of range for ", vertices.size(),
                           " vertices (at position ", i, ")"));
    }
    for (std::size_t i = 0; i < vertices.size(); ++i) {
        const Vertex& v = vertices[i];
        BATCHSIM_CHECK(std::isfinite(v.px) && std::isfinite(v.py) && std::isfinite(v.pz),
                       InvalidArgument, str("vertex ", i, " has a non-finite position"));
    }
}

// Each triangle's material: that of the chunk covering it; chunks past the end are clipped
// (validation rejects such scenes anyway).
std::vector<std::uint32_t> triangle_materials(std::span<const MeshChunk> chunks,
                                              std::size_t triangle_count) {
    std::vector<std::uint32_t> materials(triangle_count, 0);
    for (const MeshChunk& c : chunks) {
        const std::size_t first = std::min<std::size_t>(c.first_index / 3, triangle_count);
        const std::size_t end = std::min<std::size_t>(
            (std::uint64_t{c.first_index} + c.index_count) / 3, triangle_count);
        for (std::size_t t = first; t < end; ++t) materials[t] = c.material;
    }
    return materials;
}

class Builder {
public:
    Builder(std::span<const Vertex> vertices, std::span<const std::uint32_t> indices)
        : vertices_(vertices), indices_(indices) {
        const std::size_t count = indices.size() / 3;
        boxes_.resize(count);
        centroids_.resize(count);
        order_.resize(count);
        for (std::uint32_t t = 0; t < count; ++t) {
            for (std::size_t k = 0; k < 3; ++k) boxes_[t].grow(corner(t, k));
            for (std::size_t a = 0; a < 3; ++a)
                centroids_[t][a] = 0.5f * (boxes_[t].lo[a] + boxes_[t].hi[a]);
            order_[t] = t;
        }
    }

    // Nodes and the triangle order; node 0 is the root even when the scene is one leaf (then
    // its right child is an empty leaf, and so is its left one in a scene without triangles).
    std::vector<BvhNode> build() {
        const Range all = measure(0, std::uint32_t(order_.size()));
        const auto [ref, count] = child(all, 1);
        if ((count & gpu::kBvhLeaf) != 0) {
            const Box empty{{1, 1, 1}, {-1, -1, -1}};  // inverted but finite, as validation wants
            nodes_.assign(1, BvhNode{});
            set_child(nodes_[0], 0, all.size() > 0 ? all.bounds : empty, ref, count);
            set_child(nodes_[0], 1, empty, 0, gpu::kBvhLeaf);
        }
        return std::move(nodes_);
    }

    [[nodiscard]] std::span<const std::uint32_t> order() const { return order_; }
    [[nodiscard]] Vec3 corner(std::uint32_t triangle, std::size_t k) const {
        const Vertex& v = vertices_[indices_[3 * std::size_t{triangle} + k]];
        return {v.px, v.py, v.pz};
    }

private:
    Range measure(std::uint32_t begin, std::uint32_t end) const {
        Range r{begin, end, {}, {}};
        for (std::uint32_t i = begin; i < end; ++i) {
            r.bounds.grow(boxes_[order_[i]]);
            r.centroids.grow(centroids_[order_[i]]);
        }
        return r;
    }

    // The child slot for `r`: (first triangle, count | kBvhLeaf) for a leaf, or (node index,
    // 0) for a node at `level` (the root's level is 1) built below it.
    std::pair<std::uint32_t, std::uint32_t> child(const Range& r, std::uint32_t level) {
        if (r.size() <= 1 || level > kMaxDepth) return {r.begin, r.size() | gpu::kBvhLeaf};
        const std::optional<Split> split = best_split(r);
        const double leaf_cost = kIntersectionCost * r.size();
        if (r.size() <= kMaxLeafTriangles && (!split || split->cost >= leaf_cost))
            return {r.begin, r.size() | gpu::kBvhLeaf};
        return {node(r, split, level), 0};
    }

    std::uint32_t node(const Range& r, const std::optional<Split>& split, std::uint32_t level) {
        const auto index = std::uint32_t(nodes_.size());
        nodes_.emplace_back();
        const std::uint32_t middle = split ? partition(r, *split) : median(r);
        const Range left = measure(r.begin, middle), right = measure(middle, r.end);
        const auto [left_ref, left_count] = child(left, level + 1);
        const auto [right_ref, right_count] = child(right, level + 1);
        set_child(nodes_[index], 0, left.bounds, left_ref, left_count);
        set_child(nodes_[index], 1, right.bounds, right_ref, right_count);
        return index;
    }

    static void set_child(BvhNode& n, int side, const Box& b, std::uint32_t ref,
                          std::uint32_t count) {
        if (side == 0) {
            n.left_min_x = b.lo[0], n.left_min_y = b.lo[1], n.left_min_z = b.lo[2];
            n.left_max_x = b.hi[0], n.left_max_y = b.hi[1], n.left_max_z = b.hi[2];
            n.left = ref, n.left_count = count;
        } else {
            n.right_min_x = b.lo[0], n.right_min_y = b.lo[1], n.right_min_z = b.lo[2];
            n.right_max_x = b.hi[0], n.right_max_y = b.hi[1], n.right_max_z = b.hi[2];
            n.right = ref, n.right_count = count;
        }
    }

    static std::uint32_t bin_of(const Vec3& centroid, std::uint32_t axis, const Range& r,
                                float scale) {
        const float offset = (centroid[axis] - r.centroids.lo[axis]) * scale;
        return std::min(kBins - 1, static_cast<std::uint32_t>(offset));
    }

    static float bin_scale(const Range& r, std::uint32_t axis) {
        const float extent = r.centroids.hi[axis] - r.centroids.lo[axis];
        const float scale = float(kBins) / extent;
        return extent > 0 && std::isfinite(scale) ? scale : 0.0f;
    }

    // The cheapest SAH split over all axes, or none when every centroid is the same.
    std::optional<Split> best_split(const Range& r) const {
        std::optional<Split> best;
        for (std::uint32_t axis = 0; axis < 3; ++axis) {
            const float scale = bin_scale(r, axis);
            if (scale == 0.0f) continue;
            std::array<Bin, kBins> bins{};
            for (std::uint32_t i = r.begin; i < r.end; ++i) {
                Bin& bin = bins[bin_of(centroids_[order_[i]], axis, r, scale)];
                bin.count += 1;
                bin.bounds.grow(boxes_[order_[i]]);
            }
            sweep(bins, axis, r.bounds.half_area(), best);
        }
        return best;
    }

    // SAH cost of each plane between bins: a sweep from the right, then one from the left.
    static void sweep(const std::array<Bin, kBins>& bins, std::uint32_t axis, double parent_area,
                      std::optional<Split>& best) {
        std::array<double, kBins> right_cost{};  // area x count of bins [b, kBins)
        Box box;
        std::uint32_t count = 0;
        for (std::uint32_t b = kBins - 1; b > 0; --b) {
            box.grow(bins[b].bounds), count += bins[b].count;
            right_cost[b] = count ? box.half_area() * count : -1.0;
        }
        box = Box{}, count = 0;
        for (std::uint32_t b = 1; b < kBins; ++b) {
            box.grow(bins[b - 1].bounds), count += bins[b - 1].count;
            if (count == 0 || right_cost[b] < 0) continue;
            const double cost = kTraversalCost + kIntersectionCost *
                                                     (box.half_area() * count + right_cost[b]) /
                                                     std::max(parent_area, 1e-30);
            if (!best || cost < best->cost) best = Split{axis, b, cost};
        }
    }

    std::uint32_t partition(const Range& r, const Split& s) {
        const float scale = bin_scale(r, s.axis);
        const auto middle = std::partition(
            order_.begin() + r.begin, order_.begin() + r.end,
            [&](std::uint32_t t) { return bin_of(centroids_[t], s.axis, r, scale) < s.bin; });
        return std::uint32_t(middle - order_.begin());
    }

    // Object median along the widest centroid axis, ties broken by triangle index: splits
    // even triangles with equal centroids, so leaves stay small below the depth cap.
    std::uint32_t median(const Range& r) {
        std::uint32_t axis = 0;
        for (std::uint32_t a = 1; a < 3; ++a) {
            if (r.centroids.hi[a] - r.centroids.lo[a] > r.centroids.hi[axis] - r.centroids.lo[axis])
                axis = a;
        }
        const std::uint32_t middle = r.begin + r.size() / 2;
        std::nth_element(order_.begin() + r.begin, order_.begin() + middle, order_.begin() + r.end,
                         [&](std::uint32_t a, std::uint32_t b) {
                             const float ca = centroids_[a][axis], cb = centroids_[b][axis];
                             return ca < cb || (ca == cb && a < b);
                         });
        return middle;
    }

    std::span<const Vertex> vertices_;
    std::span<const std::uint32_t> indices_;
    std::vector<Box> boxes_;
    std::vector<Vec3> centroids_;
    std::vector<std::uint32_t> order_;  // triangles; each node's are a contiguous run
    std::vector<BvhNode> nodes_;
};

}  // namespace

Bvh build_bvh(std::span<const Vertex> vertices, std::span<const std::uint32_t> indices,
              std::span<const MeshChunk> chunks) {
    check_geometry(vertices, indices);
    Builder builder(vertices, indices);
    Bvh bvh;
    bvh.nodes = builder.build();
    const std::vector<std::uint32_t> materials = triangle_materials(chunks, indices.size() / 3);
    bvh.triangles.reserve(builder.order().size());
    for (const std::uint32_t t : builder.order()) {
        const Vec3 a = builder.corner(t, 0), b = builder.corner(t, 1), c = builder.corner(t, 2);
        bvh.triangles.push_back(
            {a[0], a[1], a[2], t, b[0], b[1], b[2], materials[t], c[0], c[1], c[2], 0});
    }
    return bvh;
}

}  // namespace batchsim::assets
