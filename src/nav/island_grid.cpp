#include "nav/island_grid.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

namespace batchsim::nav {
namespace {

constexpr float kCell = 1.0f;  // cell side seen from above, in metres
// Polygon bounds are widened by this before marking cells: queryPolygons compares bounds
// quantized outwards (at most two quantization steps each way), in metres.
constexpr float kMargin = 0.25f;
// `inside` must overlap the box by this much horizontally and vertically, so that its
// quantized bounds overlap the quantized box however the rounding goes, in metres.
constexpr float kInsideMargin = 0.01f;
constexpr float kHeightSlack = 1.0f;  // detail heights may differ from the corners'
constexpr long kMaxCells = 1L << 22;
constexpr int kEmpty = INT_MIN;
constexpr int kMixed = INT_MIN + 1;

// dtQueryFilter::passFilter, which Debian's Detour does not export.
bool walkable(const dtQueryFilter& filter, const dtPoly& poly) {
    return (poly.flags & filter.getIncludeFlags()) != 0 &&
           (poly.flags & filter.getExcludeFlags()) == 0;
}

void bounds(const dtMeshTile& tile, const dtPoly& poly, float* lo, float* hi) {
    for (int i = 0; i < 3; ++i) lo[i] = hi[i] = polygon_corner(tile, poly, 0)[i];
    for (int k = 1; k < poly.vertCount; ++k)
        for (int i = 0; i < 3; ++i)
            lo[i] = std::min(lo[i], polygon_corner(tile, poly, k)[i]),
            hi[i] = std::max(hi[i], polygon_corner(tile, poly, k)[i]);
}

}  // namespace

void IslandGrid::mark(const float* lo, const float* hi, int island) {
    const int c0 = int(std::floor((lo[0] - kMargin - origin_[0]) / kCell));
    const int c1 = int(std::floor((hi[0] + kMargin - origin_[0]) / kCell));
    const int r0 = int(std::floor((lo[2] - kMargin - origin_[1]) / kCell));
    const int r1 = int(std::floor((hi[2] + kMargin - origin_[1]) / kCell));
    for (int r = std::max(r0, 0); r <= std::min(r1, rows_ - 1); ++r)
        for (int c = std::max(c0, 0); c <= std::min(c1, cols_ - 1); ++c) {
            int& cell = cells_[std::size_t(r) * std::size_t(cols_) + std::size_t(c)];
            cell = cell == kEmpty || cell == island ? island : kMixed;
        }
}

void IslandGrid::build(const dtNavMesh& mesh, const dtQueryFilter& filter, const Islands& islands) {
    built_ = true;
    float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int t = 0; t < mesh.getMaxTiles(); ++t) {
        const dtMeshHeader* header = mesh.getTile(t)->header;
        if (!header) continue;
        // Quantization coarser than the margin: the widened bounds might not cover it.
        if (mesh.getTile(t)->bvTree && !(3.0f / header->bvQuantFactor < kMargin)) return;
        lo[0] = std::min(lo[0], header->bmin[0]), lo[1] = std::min(lo[1], header->bmin[2]);
        hi[0] = std::max(hi[0], header->bmax[0]), hi[1] = std::max(hi[1], header->bmax[2]);
    }
    if (!(lo[0] <= hi[0] && lo[1] <= hi[1])) return;
    origin_[0] = lo[0] - kMargin - kCell, origin_[1] = lo[1] - kMargin - kCell;
    cols_ = int(std::ceil((hi[0] - origin_[0] + kMargin) / kCell)) + 2;
    rows_ = int(std::ceil((hi[1] - origin_[1] + kMargin) / kCell)) + 2;
    if (long(cols_) * long(rows_) > kMaxCells) return;
    cells_.assign(std::size_t(cols_) * std::size_t(rows_), kEmpty);
    for (int t = 0; t < mesh.getMaxTiles(); ++t) {
        const dtMeshTile* tile = mesh.getTile(t);
        if (!tile->header) continue;
        for (int i = 0; i < tile->header->polyCount; ++i) {
            const dtPoly& poly = tile->polys[i];
            if (!walkable(filter, poly)) continue;  // queryPolygons never returns it
            float plo[3], phi[3];
            bounds(*tile, poly, plo, phi);
            mark(plo, phi, islands.island_of(mesh.getPolyRefBase(tile) | dtPolyRef(i)));
        }
    }
    usable_ = true;
}

bool IslandGrid::settles(const dtNavMeshQuery& query, const dtQueryFilter& filter,
                         const Islands& islands, dtPolyRef inside, const Vec3& point,
                         const float* half_extents, int island) {
    const dtNavMesh& mesh = *query.getAttachedNavMesh();
    if (!built_) build(mesh, filter, islands);
    const dtMeshTile* tile = nullptr;
    const dtPoly* poly = nullptr;
    if (!usable_ || inside == 0 || dtStatusFailed(mesh.getTileAndPolyByRef(inside, &tile, &poly)) ||
        !walkable(filter, *poly) || poly->getType() != DT_POLYTYPE_GROUND)
        return false;
    float lo[3], hi[3];
    bounds(*tile, *poly, lo, hi);
    for (int i = 0; i < 3; ++i) {  // also false for NaN
        const float margin = i == 1 ? kHeightSlack : kInsideMargin;
        if (!(lo[i] <= point[i] + half_extents[i] - margin &&
              hi[i] >= point[i] - half_extents[i] + margin))
            return false;
    }
    const int c0 = std::max(int(std::floor((point[0] - half_extents[0] - origin_[0]) / kCell)), 0);
    const int c1 =
        std::min(int(std::floor((point[0] + half_extents[0] - origin_[0]) / kCell)), cols_ - 1);
    const int r0 = std::max(int(std::floor((point[2] - half_extents[2] - origin_[1]) / kCell)), 0);
    const int r1 =
        std::min(int(std::floor((point[2] + half_extents[2] - origin_[1]) / kCell)), rows_ - 1);
    for (int r = r0; r <= r1; ++r)
        for (int c = c0; c <= c1; ++c) {
            const int cell = cells_[std::size_t(r) * std::size_t(cols_) + std::size_t(c)];
            if (cell != kEmpty && cell != island) return false;
        }
    return true;
}

}  // namespace batchsim::nav
