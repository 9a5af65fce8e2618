// NavMesh: one read-only navigation mesh (Detour behind a pimpl), shared by every query
// object and thread. Queries go through NavQuery (nav_query.hpp), one per thread.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "nav/navmesh_bake.hpp"

class dtNavMesh;

namespace batchsim::nav {

using Vec3 = std::array<float, 3>;

// Whether two points are the same floats bit for bit: the key of every exact memo in src/nav
// (the same inputs to a Detour query give the same answer). `a`: three floats.
inline bool same_bits(const float* a, const Vec3& b) {
    for (int i = 0; i < 3; ++i)
        if (std::bit_cast<std::uint32_t>(a[i]) != std::bit_cast<std::uint32_t>(b[i])) return false;
    return true;
}
inline bool same_bits(const Vec3& a, const Vec3& b) {
    return same_bits(a.data(), b);
}

struct IslandSummary {
    float area = 0;    // walkable surface in m² (detail triangles, as habitat-sim)
    Vec3 centroid{};   // mean of the island's polygon vertices
    float radius = 0;  // largest distance from the centroid to one of those vertices
    std::size_t polygons = 0;
};

class Islands;

class NavMesh {
public:
    // Parses and validates a Habitat .navmesh image. Throws Error(CorruptData).
    static std::shared_ptr<const NavMesh> from_habitat_bytes(std::span<const std::uint8_t> bytes);
    // Loads a .navmesh file. Throws Error(FileNotFound) or Error(CorruptData) naming it.
    static std::shared_ptr<const NavMesh> load(const std::filesystem::path& path);
    // Bakes a navmesh of the triangles with Recast (see nav/navmesh_bake.hpp).
    static std::shared_ptr<const NavMesh> bake(std::span<const float> positions,
                                               std::span<const std::uint32_t> indices,
                                               const NavMeshSettings& settings = {});

    NavMesh(const NavMesh&) = delete;
    NavMesh& operator=(const NavMesh&) = delete;
    ~NavMesh();

    // The Habitat .navmesh image of this mesh, byte-identical to the one it was made from.
    [[nodiscard]] const std::vector<std::uint8_t>& habitat_bytes() const;
    // Writes habitat_bytes() to `path` atomically.
    void save(const std::filesystem::path& path) const;

    // min, max of the tiles' bounds (habitat-sim's PathFinder::bounds for a loaded mesh).
    [[nodiscard]] std::array<Vec3, 2> bounds() const;
    // min, max of its polygons' vertices: the walkable surface itself (a tiled mesh's tile
    // bounds reach past the model by up to a tile).
    [[nodiscard]] std::array<Vec3, 2> surface_bounds() const;
    [[nodiscard]] float navigable_area() const;             // m² of walkable surface
    [[nodiscard]] const NavMeshSettings& settings() const;  // what it was baked with
    [[nodiscard]] std::size_t polygon_count() const;
    [[nodiscard]] int island_count() const;
    // Throws Error(InvalidArgument) unless 0 <= island < island_count().
    [[nodiscard]] const IslandSummary& island(int island) const;

    // For NavQuery and tests: the Detour mesh and its islands.
    [[nodiscard]] const dtNavMesh& detour() const;
    [[nodiscard]] const Islands& islands() const;

private:
    struct Impl;
    explicit NavMesh(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace batchsim::nav
