#include "nav/islands.hpp"

#include <algorithm>
#include <cmath>

#include <DetourCommon.h>

namespace batchsim::nav {
namespace {

// habitat-sim marks polygons smaller than this as unusable.
constexpr double kMinPolygonArea = 1e-5;

bool walkable(const dtPoly& poly) {
    return poly.getType() == DT_POLYTYPE_GROUND && (poly.flags & kPolyFlagWalk) != 0 &&
           (poly.flags & kPolyFlagDisabled) == 0;
}

}  // namespace

const float* polygon_corner(const dtMeshTile& tile, const dtPoly& poly, int k) {
    return &tile.verts[std::size_t{poly.verts[k]} * 3];
}

int copy_polygon_corners(const dtMeshTile& tile, const dtPoly& poly, float* out) {
    for (int k = 0; k < poly.vertCount; ++k)
        dtVcopy(out + std::size_t(k) * 3, polygon_corner(tile, poly, k));
    return poly.vertCount;
}

double polygon_area_xz(const dtMeshTile& tile, const dtPoly& poly) {
    double area = 0;
    for (int k = 2; k < poly.vertCount; ++k)
        area +=
            std::fabs(dtTriArea2D(polygon_corner(tile, poly, 0), polygon_corner(tile, poly, k - 1),
                                  polygon_corner(tile, poly, k)));
    return area / 2;  // dtTriArea2D returns twice the signed area
}

double polygon_area_3d(const dtMeshTile& tile, int poly_index) {
    const dtPoly& poly = tile.polys[poly_index];
    const dtPolyDetail& detail = tile.detailMeshes[poly_index];
    auto corner = [&](unsigned char index) {
        return index < poly.vertCount
                   ? polygon_corner(tile, poly, index)
                   : &tile.detailVerts[std::size_t{detail.vertBase + index - poly.vertCount} * 3];
    };
    double area = 0;
    for (int t = 0; t < detail.triCount; ++t) {
        const unsigned char* tri = &tile.detailTris[std::size_t{detail.triBase + t} * 4];
        float edge1[3], edge2[3], normal[3];
        dtVsub(edge1, corner(tri[1]), corner(tri[0]));
        dtVsub(edge2, corner(tri[2]), corner(tri[0]));
        dtVcross(normal, edge1, edge2);
        area += 0.5 * static_cast<double>(dtVlen(normal));
    }
    return area;
}

void disable_zero_area_polygons(dtNavMesh& mesh) {
    for (int t = 0; t < mesh.getMaxTiles(); ++t) {
        const dtMeshTile* tile = static_cast<const dtNavMesh&>(mesh).getTile(t);
        if (!tile->header) continue;
        const dtPolyRef base = mesh.getPolyRefBase(tile);
        for (int p = 0; p < tile->header->polyCount; ++p)
            if (polygon_area_3d(*tile, p) < kMinPolygonArea)
                mesh.setPolyFlags(base | static_cast<dtPolyRef>(p), kPolyFlagDisabled);
    }
}

void Islands::Sampler::add(dtPolyRef ref, double area) {
    polys.push_back(ref);
    cumulative_area.push_back(total() + area);
}

Islands::Islands(const dtNavMesh& mesh) : mesh_(mesh) {
    island_by_tile_.resize(static_cast<std::size_t>(mesh.getMaxTiles()));
    for (int t = 0; t < mesh.getMaxTiles(); ++t) {
        const dtMeshTile* tile = mesh.getTile(t);
        if (tile->header) island_by_tile_[t].assign(std::size_t(tile->header->polyCount), -1);
    }
    for (int t = 0; t < mesh.getMaxTiles(); ++t) {
        const dtMeshTile* tile = mesh.getTile(t);
        if (!tile->header) continue;
        const dtPolyRef base = mesh.getPolyRefBase(tile);
        for (int p = 0; p < tile->header->polyCount; ++p) {
            if (!walkable(tile->polys[p]) || island_by_tile_[t][p] >= 0) continue;
            flood(mesh, base | static_cast<dtPolyRef>(p), count());
            summarize(mesh, count() - 1);
        }
    }
}

// Breadth-first search over polygon links from `seed`, labelling everything reached.
void Islands::flood(const dtNavMesh& mesh, dtPolyRef seed, int island) {
    summaries_.emplace_back();
    samplers_.emplace_back();
    std::vector<dtPolyRef> frontier{seed};
    island_by_tile_[mesh.decodePolyIdTile(seed)][mesh.decodePolyIdPoly(seed)] = island;
    while (!frontier.empty()) {
        const dtPolyRef ref = frontier.back();
        frontier.pop_back();
        const dtMeshTile* tile = nullptr;
        const dtPoly* poly = nullptr;
        mesh.getTileAndPolyByRefUnsafe(ref, &tile, &poly);
        const double weight = polygon_area_xz(*tile, *poly);
        samplers_[island].add(ref, weight);
        all_.add(ref, weight);
        const double area = polygon_area_3d(*tile, static_cast<int>(mesh.decodePolyIdPoly(ref)));
        summaries_[island].area += static_cast<float>(area);
        total_area_ += area;
        for (unsigned l = poly->firstLink; l != DT_NULL_LINK; l = tile->links[l].next) {
            const dtPolyRef next = tile->links[l].ref;
            const dtMeshTile* next_tile = nullptr;
            const dtPoly* next_poly = nullptr;
            if (!next || dtStatusFailed(mesh.getTileAndPolyByRef(next, &next_tile, &next_poly)))
                continue;
            int& label = island_by_tile_[mesh.decodePolyIdTile(next)][mesh.decodePolyIdPoly(next)];
            if (label >= 0 || !walkable(*next_poly)) continue;
            label = island;
            frontier.push_back(next);
        }
    }
}

void Islands::summarize(const dtNavMesh& mesh, int island) {
    IslandSummary& summary = summaries_[island];
    const Sampler& sampler = samplers_[island];
    summary.polygons = sampler.polys.size();
    std::vector<Vec3> corners;
    for (dtPolyRef ref : sampler.polys) {
        const dtMeshTile* tile = nullptr;
        const dtPoly* poly = nullptr;
        mesh.getTileAndPolyByRefUnsafe(ref, &tile, &poly);
        for (int k = 0; k < poly->vertCount; ++k) {
            const float* v = polygon_corner(*tile, *poly, k);
            corners.push_back({v[0], v[1], v[2]});
        }
    }
    Vec3 sum{0, 0, 0};
    for (const Vec3& c : corners)
        for (int i = 0; i < 3; ++i) sum[i] += c[i];
    for (int i = 0; i < 3; ++i) summary.centroid[i] = sum[i] / static_cast<float>(corners.size());
    for (const Vec3& c : corners)
        summary.radius = std::max(summary.radius, dtVdist(c.data(), summary.centroid.data()));
}

int Islands::island_of(dtPolyRef ref) const {
    if (!mesh_.isValidPolyRef(ref)) return -1;
    return island_by_tile_[mesh_.decodePolyIdTile(ref)][mesh_.decodePolyIdPoly(ref)];
}

dtPolyRef Islands::pick_polygon(int island, float u) const {
    const Sampler& sampler = island < 0 ? all_ : samplers_.at(static_cast<std::size_t>(island));
    const double target = static_cast<double>(u) * sampler.total();
    auto it =
        std::upper_bound(sampler.cumulative_area.begin(), sampler.cumulative_area.end(), target);
    if (it == sampler.cumulative_area.end()) --it;  // u rounds up to the total
    return sampler.polys[static_cast<std::size_t>(it - sampler.cumulative_area.begin())];
}

}  // namespace batchsim::nav
