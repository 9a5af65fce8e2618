// Test geometry shared by the BVH tests: triangle soups with awkward triangles, an
// axis-aligned room, and boxes to check bounds with.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "assets/bvh.hpp"

namespace batchsim::test {

using Vec3 = std::array<float, 3>;
inline constexpr float kInf = std::numeric_limits<float>::infinity();

struct Geometry {
    std::vector<assets::Vertex> vertices;
    std::vector<std::uint32_t> indices;
    std::vector<assets::MeshChunk> chunks;

    void add(const Vec3& a, const Vec3& b, const Vec3& c) {
        for (const Vec3& p : {a, b, c}) {
            indices.push_back(static_cast<std::uint32_t>(vertices.size()));
            vertices.push_back({p[0], p[1], p[2], 0, 1, 0, 0, 0});
        }
    }
    // Two chunks (materials 3 and 5) splitting the triangles; their boxes do not matter here.
    void finish() {
        const auto half = static_cast<std::uint32_t>(indices.size() / 6 * 3);
        const auto all = static_cast<std::uint32_t>(indices.size());
        chunks = {{0, 0, 0, 0, 0, 0, 0, half, 3, 0, 0, 0},
                  {0, 0, 0, half, 0, 0, 0, all - half, 5, 0, 0, 0}};
    }
    [[nodiscard]] assets::Bvh build() const { return assets::build_bvh(vertices, indices, chunks); }
    [[nodiscard]] Vec3 corner(std::size_t triangle, std::size_t k) const {
        const assets::Vertex& v = vertices[indices[3 * triangle + k]];
        return {v.px, v.py, v.pz};
    }
};

// ~2,000 triangles in [0, 10]^3: ordinary ones (half in four dense clusters), large ones,
// slivers and zero-area ones (a repeated corner, or three collinear corners).
inline Geometry soup(unsigned seed, int count = 2000) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> unit(0, 1);
    const auto around = [&](const Vec3& c, float r) {
        return Vec3{c[0] + r * (2 * unit(random) - 1), c[1] + r * (2 * unit(random) - 1),
                    c[2] + r * (2 * unit(random) - 1)};
    };
    const std::array<Vec3, 4> clusters{{{1, 1, 1}, {8, 2, 3}, {3, 8, 7}, {7, 7, 9}}};
    Geometry g;
    for (int i = 0; i < count; ++i) {
        const int kind = i % 10;
        const Vec3 centre = kind < 4
                                ? around(clusters[i % 4], 0.6f)
                                : Vec3{10 * unit(random), 10 * unit(random), 10 * unit(random)};
        const Vec3 a = around(centre, 0.01f);
        if (kind == 7) {  // a sliver: two far corners, the third almost on their line
            const Vec3 b = around(centre, 2.0f);
            g.add(a, b, {0.5f * (a[0] + b[0]), 0.5f * (a[1] + b[1]) + 1e-4f, 0.5f * (a[2] + b[2])});
        } else if (kind == 8) {  // zero area
            const Vec3 b = around(centre, 0.5f);
            g.add(a, b, i % 20 == 8 ? a : Vec3{2 * b[0] - a[0], 2 * b[1] - a[1], 2 * b[2] - a[2]});
        } else {
            const float size = kind == 9 ? 3.0f : 0.02f * std::pow(30.0f, unit(random));
            g.add(a, around(centre, size), around(centre, size));
        }
    }
    g.finish();
    return g;
}

// A 10 x 3 x 10 m room: a 30 x 30 quad floor and a 10 x 3 quad ceiling and walls, all axis
// aligned, many triangles sharing edges and planes.
inline Geometry room() {
    Geometry g;
    const auto quad = [&](const Vec3& o, const Vec3& u, const Vec3& v) {
        const auto at = [&](float s, float t) {
            return Vec3{o[0] + s * u[0] + t * v[0], o[1] + s * u[1] + t * v[1],
                        o[2] + s * u[2] + t * v[2]};
        };
        g.add(at(0, 0), at(1, 0), at(1, 1));
        g.add(at(0, 0), at(1, 1), at(0, 1));
    };
    const auto grid = [&](const Vec3& o, const Vec3& u, const Vec3& v, int nu, int nv) {
        for (int i = 0; i < nu; ++i) {
            for (int j = 0; j < nv; ++j) {
                const float s = float(i) / float(nu), t = float(j) / float(nv);
                quad({o[0] + s * u[0] + t * v[0], o[1] + s * u[1] + t * v[1],
                      o[2] + s * u[2] + t * v[2]},
                     {u[0] / float(nu), u[1] / float(nu), u[2] / float(nu)},
                     {v[0] / float(nv), v[1] / float(nv), v[2] / float(nv)});
            }
        }
    };
    grid({0, 0, 0}, {10, 0, 0}, {0, 0, 10}, 30, 30);
    grid({0, 3, 0}, {10, 0, 0}, {0, 0, 10}, 10, 10);
    grid({0, 0, 0}, {10, 0, 0}, {0, 3, 0}, 10, 3);
    grid({0, 0, 10}, {10, 0, 0}, {0, 3, 0}, 10, 3);
    grid({0, 0, 0}, {0, 0, 10}, {0, 3, 0}, 10, 3);
    grid({10, 0, 0}, {0, 0, 10}, {0, 3, 0}, 10, 3);
    g.finish();
    return g;
}

// An axis-aligned box; empty (lo > hi) until grown.
struct Box {
    Vec3 lo{kInf, kInf, kInf}, hi{-kInf, -kInf, -kInf};
    void grow(const Vec3& p) {
        for (std::size_t a = 0; a < 3; ++a)
            lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
    }
    void grow(const Box& b) {
        for (std::size_t a = 0; a < 3; ++a)
            lo[a] = std::min(lo[a], b.lo[a]), hi[a] = std::max(hi[a], b.hi[a]);
    }
    [[nodiscard]] bool contains(const Box& b) const {
        for (std::size_t a = 0; a < 3; ++a)
            if (b.lo[a] < lo[a] || b.hi[a] > hi[a]) return false;
        return true;
    }
    [[nodiscard]] double half_area() const {
        const double x = double(hi[0]) - lo[0], y = double(hi[1]) - lo[1],
                     z = double(hi[2]) - lo[2];
        return x * y + y * z + z * x;
    }
};

inline Box triangle_box(const gpu::BvhTriangle& t) {
    Box b;
    for (const Vec3& p : {Vec3{t.ax, t.ay, t.az}, Vec3{t.bx, t.by, t.bz}, Vec3{t.cx, t.cy, t.cz}})
        b.grow(p);
    return b;
}

inline Box bounds_of(const Geometry& g) {
    Box b;
    for (const assets::Vertex& v : g.vertices) b.grow(Vec3{v.px, v.py, v.pz});
    return b;
}

}  // namespace batchsim::test
