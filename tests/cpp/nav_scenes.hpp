// Analytic test scenes for the navigation tests: floors made of axis-aligned rectangles,
// with known walkable regions and geodesic distances.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "nav/navmesh.hpp"

namespace batchsim::test {

struct Rect {
    float x0, z0, x1, z1;  // floor rectangle at height y = 0 (or `y`)
    float y = 0;
};

struct Mesh {
    std::vector<float> positions;
    std::vector<std::uint32_t> indices;
};

inline void add_floor(Mesh& mesh, const Rect& r) {
    const auto base = static_cast<std::uint32_t>(mesh.positions.size() / 3);
    const float corners[] = {r.x0, r.y, r.z0, r.x1, r.y, r.z0, r.x1, r.y, r.z1, r.x0, r.y, r.z1};
    mesh.positions.insert(mesh.positions.end(), std::begin(corners), std::end(corners));
    // Counter-clockwise seen from above (+y), so the normal points up.
    const std::uint32_t tris[] = {base, base + 2, base + 1, base, base + 3, base + 2};
    mesh.indices.insert(mesh.indices.end(), std::begin(tris), std::end(tris));
}

// An axis-aligned box (walls, obstacles): six faces, outward normals.
inline void add_box(Mesh& mesh, float x0, float y0, float z0, float x1, float y1, float z1) {
    const auto base = static_cast<std::uint32_t>(mesh.positions.size() / 3);
    for (int i = 0; i < 8; ++i) {
        mesh.positions.push_back(i & 1 ? x1 : x0);
        mesh.positions.push_back(i & 2 ? y1 : y0);
        mesh.positions.push_back(i & 4 ? z1 : z0);
    }
    const std::uint32_t faces[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                       {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    for (const auto& f : faces)
        for (std::uint32_t k : {f[0], f[1], f[2], f[0], f[2], f[3]})
            mesh.indices.push_back(base + k);
}

inline Mesh floors(std::initializer_list<Rect> rects) {
    Mesh mesh;
    for (const Rect& r : rects) add_floor(mesh, r);
    return mesh;
}

inline std::shared_ptr<const nav::NavMesh> bake(const Mesh& mesh,
                                                const nav::NavMeshSettings& settings = {}) {
    return nav::NavMesh::bake(mesh.positions, mesh.indices, settings);
}

}  // namespace batchsim::test
