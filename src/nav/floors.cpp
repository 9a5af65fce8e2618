#include "nav/floors.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <DetourNavMesh.h>

#include "nav/islands.hpp"

namespace batchsim::nav {
namespace {

struct Level {
    double height = 0;  // area-weighted mean height of a walkable polygon
    double area = 0;    // on the xz plane, m²
};

// Every walkable polygon's mean corner height and area.
std::vector<Level> polygon_levels(const NavMesh& navmesh) {
    const dtNavMesh& mesh = navmesh.detour();
    const Islands& islands = navmesh.islands();
    std::vector<Level> levels;
    for (int t = 0; t < mesh.getMaxTiles(); ++t) {
        const dtMeshTile* tile = mesh.getTile(t);
        if (tile == nullptr || tile->header == nullptr) continue;
        const dtPolyRef base = mesh.getPolyRefBase(tile);
        for (int p = 0; p < tile->header->polyCount; ++p) {
            const dtPoly& poly = tile->polys[p];
            if (islands.island_of(base | static_cast<dtPolyRef>(p)) < 0) continue;
            double y = 0;
            for (int k = 0; k < poly.vertCount; ++k) y += polygon_corner(*tile, poly, k)[1];
            levels.push_back({y / poly.vertCount, polygon_area_xz(*tile, poly)});
        }
    }
    return levels;
}

// Area per height bin, keyed by bin index.
std::map<long, double> area_by_bin(const std::vector<Level>& levels, float bin) {
    std::map<long, double> bins;
    for (const Level& l : levels) bins[std::lround(l.height / bin)] += l.area;
    return bins;
}

// Mean height of the polygons within half a separation of `peak`, weighted by area.
float refine(const std::vector<Level>& levels, double peak, double half_window) {
    double sum = 0, area = 0;
    for (const Level& l : levels)
        if (std::abs(l.height - peak) <= half_window) sum += l.height * l.area, area += l.area;
    return static_cast<float>(area > 0 ? sum / area : peak);
}

}  // namespace

std::vector<float> floor_heights(const NavMesh& mesh, const FloorOptions& options) {
    const std::vector<Level> levels = polygon_levels(mesh);
    double total = 0;
    for (const Level& l : levels) total += l.area;
    if (total <= 0) return {};
    // Peaks by decreasing area (then height, for determinism); each may add a floor.
    std::vector<std::pair<double, long>> peaks;
    for (const auto& [index, area] : area_by_bin(levels, options.bin))
        peaks.emplace_back(area, index);
    std::sort(peaks.begin(), peaks.end(), [](const auto& a, const auto& b) {
        return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    std::vector<float> floors;
    for (const auto& [area, index] : peaks) {
        if (area < options.min_area_share * total) break;
        const double height = static_cast<double>(index) * options.bin;
        const bool near = std::any_of(floors.begin(), floors.end(), [&](float f) {
            return std::abs(f - height) < options.min_separation;
        });
        if (!near) floors.push_back(refine(levels, height, options.bin * 2.5));
    }
    std::sort(floors.begin(), floors.end());
    return floors;
}

}  // namespace batchsim::nav
