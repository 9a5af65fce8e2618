// Connected components ("islands") of a navmesh, and area-weighted polygon sampling per
// island. Internal to src/nav: works on Detour types.
#pragma once

#include <vector>

#include <DetourNavMesh.h>

#include "nav/navmesh.hpp"

namespace batchsim::nav {

class Islands {
public:
    // Labels every walkable polygon; `mesh` must outlive this object.
    explicit Islands(const dtNavMesh& mesh);

    [[nodiscard]] int count() const { return static_cast<int>(summaries_.size()); }
    [[nodiscard]] const IslandSummary& summary(int island) const { return summaries_.at(island); }
    // The island of a polygon, or -1 for refs that name no walkable polygon.
    [[nodiscard]] int island_of(dtPolyRef ref) const;
    // The polygon that u in [0, 1) falls on when each polygon of `island` (all islands if
    // island < 0) gets a share of [0, 1) proportional to its area.
    [[nodiscard]] dtPolyRef pick_polygon(int island, float u) const;
    // habitat-sim's navigable area: the detail surface of all walkable polygons, in m².
    [[nodiscard]] float total_area() const { return static_cast<float>(total_area_); }
    [[nodiscard]] std::size_t polygon_count() const { return all_.polys.size(); }

private:
    struct Sampler {
        std::vector<dtPolyRef> polys;
        std::vector<double> cumulative_area;  // inclusive prefix sums
        void add(dtPolyRef ref, double area);
        [[nodiscard]] double total() const {
            return cumulative_area.empty() ? 0.0 : cumulative_area.back();
        }
    };

    void flood(const dtNavMesh& mesh, dtPolyRef seed, int island);
    void summarize(const dtNavMesh& mesh, int island);

    const dtNavMesh& mesh_;                         // outlives this: both live in NavMesh
    std::vector<std::vector<int>> island_by_tile_;  // [tile index][polygon index], -1 = none
    std::vector<IslandSummary> summaries_;
    std::vector<Sampler> samplers_;  // one per island
    Sampler all_;
    double total_area_ = 0;
};

// habitat-sim's polygon flags: queries accept WALK polygons that are not DISABLED.
inline constexpr unsigned short kPolyFlagWalk = 0x01;
inline constexpr unsigned short kPolyFlagDisabled = 0x04;

// Corner k of a polygon (3 floats), and all corners copied to `out` (3 floats each, at
// least 3 * DT_VERTS_PER_POLYGON); returns the corner count.
const float* polygon_corner(const dtMeshTile& tile, const dtPoly& poly, int k);
int copy_polygon_corners(const dtMeshTile& tile, const dtPoly& poly, float* out);

// Area of a polygon projected on the xz plane, in m²: Detour's weight for random points.
double polygon_area_xz(const dtMeshTile& tile, const dtPoly& poly);
// Surface area of a polygon's detail triangles, in m²: habitat-sim's navigable area.
double polygon_area_3d(const dtMeshTile& tile, int poly_index);
// Flags polygons under 1e-5 m² DISABLED, as habitat-sim does after loading or baking.
void disable_zero_area_polygons(dtNavMesh& mesh);

}  // namespace batchsim::nav
