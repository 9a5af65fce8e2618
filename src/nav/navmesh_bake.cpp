#include "nav/navmesh_bake.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string_view>

#include <DetourCommon.h>
#include <DetourNavMeshBuilder.h>
#include <Recast.h>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "nav/habitat_format.hpp"

namespace batchsim::nav {
namespace {

// habitat-sim's area and flag for walkable polygons: Detour's default query filter
// accepts any polygon with a non-zero flag.
constexpr unsigned char kGroundArea = 1;
constexpr unsigned short kWalkFlag = 1;

template <typename T, void (*Free)(T*)>
struct RecastDeleter {
    void operator()(T* object) const { Free(object); }
};
template <typename T, void (*Free)(T*)>
using RecastPtr = std::unique_ptr<T, RecastDeleter<T, Free>>;
using Heightfield = RecastPtr<rcHeightfield, rcFreeHeightField>;
using CompactHeightfield = RecastPtr<rcCompactHeightfield, rcFreeCompactHeightfield>;
using ContourSet = RecastPtr<rcContourSet, rcFreeContourSet>;
using PolyMesh = RecastPtr<rcPolyMesh, rcFreePolyMesh>;
using PolyMeshDetail = RecastPtr<rcPolyMeshDetail, rcFreePolyMeshDetail>;

// Recast reports failures through booleans; name the stage that failed.
void require(bool ok, const char* stage) {
    BATCHSIM_CHECK(ok, Internal, str("Recast failed to ", stage, " (out of memory?)"));
}

// Recast bakes one tile here, and sizes it by the model's bounds: its polygons store vertices
// as 16-bit cell indices, its spans 13-bit heights (RC_SPAN_MAX_HEIGHT; higher surfaces are
// clamped, not refused), and its heightfield takes a pointer a cell before any geometry (8
// bytes: 2 GiB at 2^28 cells). Past these it failed as "out of memory?" or baked wrong.
constexpr double kMaxGridSide = 65535;
constexpr double kMaxGridCells = 1 << 28;

// Refuses a grid Recast cannot bake before it allocates one, with the numbers and the fix.
void check_grid_size(const float* bmin, const float* bmax, const NavMeshSettings& s) {
    const double x = double{bmax[0]} - bmin[0], y = double{bmax[1]} - bmin[1],
                 z = double{bmax[2]} - bmin[2];
    const double columns = x / s.cell_size, rows = z / s.cell_size, layers = y / s.cell_height;
    const double fitting_cell =
        std::max(std::max(x, z) / kMaxGridSide, std::sqrt(x * z / kMaxGridCells));
    const std::string_view units =
        "check the model's units (--scale / scale= takes them to metres)";
    BATCHSIM_CHECK(
        columns <= kMaxGridSide && rows <= kMaxGridSide && columns * rows <= kMaxGridCells,
        InvalidArgument,
        str("the model spans ", x, " x ", z, " m (x by z): at cell_size ", s.cell_size,
            " m its navmesh grid would be ", columns, " x ", rows,
            " cells, more than Recast bakes in one tile (",
            static_cast<std::uint32_t>(kMaxGridSide), " a side, ",
            static_cast<std::uint32_t>(kMaxGridCells),
            " in all: 16-bit vertex cells, 8 bytes a cell before any geometry); ", units,
            " or raise cell_size (--cell-size) to at least ", fitting_cell, " m"));
    BATCHSIM_CHECK(
        layers <= RC_SPAN_MAX_HEIGHT, InvalidArgument,
        str("the model is ", y, " m tall: at cell_height ", s.cell_height, " m that is ", layers,
            " cells, more than Recast's ", RC_SPAN_MAX_HEIGHT,
            " (13-bit span heights: higher floors would be clamped); ", units,
            " or raise cell_height (--cell-height) to at least ", y / RC_SPAN_MAX_HEIGHT, " m"));
}

// The conversions habitat-sim's PathFinder::build makes from NavMeshSettings.
rcConfig recast_config(const NavMeshSettings& s, std::span<const float> positions) {
    rcConfig cfg{};
    cfg.cs = s.cell_size;
    cfg.ch = s.cell_height;
    cfg.walkableSlopeAngle = s.agent_max_slope;
    cfg.walkableHeight = static_cast<int>(std::ceil(s.agent_height / s.cell_height));
    cfg.walkableClimb = static_cast<int>(std::floor(s.agent_max_climb / s.cell_height));
    cfg.walkableRadius = static_cast<int>(std::ceil(s.agent_radius / s.cell_size));
    cfg.maxEdgeLen = static_cast<int>(s.edge_max_len / s.cell_size);
    cfg.maxSimplificationError = s.edge_max_error;
    cfg.minRegionArea = static_cast<int>(s.region_min_size * s.region_min_size);
    cfg.mergeRegionArea = static_cast<int>(s.region_merge_size * s.region_merge_size);
    cfg.maxVertsPerPoly = s.verts_per_poly;
    cfg.detailSampleDist = s.detail_sample_dist < 0.9f ? 0 : s.cell_size * s.detail_sample_dist;
    cfg.detailSampleMaxError = s.cell_height * s.detail_sample_max_error;
    rcCalcBounds(positions.data(), static_cast<int>(positions.size() / 3), cfg.bmin, cfg.bmax);
    check_grid_size(cfg.bmin, cfg.bmax, s);
    rcCalcGridSize(cfg.bmin, cfg.bmax, cfg.cs, &cfg.width, &cfg.height);
    return cfg;
}

void check_geometry(std::span<const float> positions, std::span<const std::uint32_t> indices) {
    BATCHSIM_CHECK(positions.size() % 3 == 0 && indices.size() % 3 == 0 && !indices.empty(),
                   CorruptData,
                   str("navmesh baking needs xyz positions and 3 indices per triangle, got ",
                       positions.size(), " floats and ", indices.size(), " indices"));
    for (float value : positions)
        BATCHSIM_CHECK(std::isfinite(value), CorruptData, "navmesh geometry is not finite");
    const std::size_t vertex_count = positions.size() / 3;
    for (std::uint32_t index : indices)
        BATCHSIM_CHECK(
            index < vertex_count, CorruptData,
            str("triangle index ", index, " out of range for ", vertex_count, " vertices"));
}

Heightfield rasterize(rcContext& ctx, const rcConfig& cfg, const NavMeshSettings& settings,
                      std::span<const float> positions, std::span<const std::uint32_t> indices) {
    Heightfield solid(rcAllocHeightfield());
    require(solid && rcCreateHeightfield(&ctx, *solid, cfg.width, cfg.height, cfg.bmin, cfg.bmax,
                                         cfg.cs, cfg.ch),
            "create the heightfield");
    const int vertex_count = static_cast<int>(positions.size() / 3);
    const int triangle_count = static_cast<int>(indices.size() / 3);
    const auto* triangles = reinterpret_cast<const int*>(indices.data());
    std::vector<unsigned char> areas(static_cast<std::size_t>(triangle_count), 0);
    rcMarkWalkableTriangles(&ctx, cfg.walkableSlopeAngle, positions.data(), vertex_count, triangles,
                            triangle_count, areas.data());
    require(rcRasterizeTriangles(&ctx, positions.data(), vertex_count, triangles, areas.data(),
                                 triangle_count, *solid, cfg.walkableClimb),
            "rasterize triangles");
    if (settings.filter_low_hanging_obstacles)
        rcFilterLowHangingWalkableObstacles(&ctx, cfg.walkableClimb, *solid);
    if (settings.filter_ledge_spans)
        rcFilterLedgeSpans(&ctx, cfg.walkableHeight, cfg.walkableClimb, *solid);
    if (settings.filter_walkable_low_height_spans)
        rcFilterWalkableLowHeightSpans(&ctx, cfg.walkableHeight, *solid);
    return solid;
}

CompactHeightfield partition(rcContext& ctx, const rcConfig& cfg, rcHeightfield& solid) {
    CompactHeightfield chf(rcAllocCompactHeightfield());
    require(
        chf && rcBuildCompactHeightfield(&ctx, cfg.walkableHeight, cfg.walkableClimb, solid, *chf),
        "build the compact heightfield");
    require(rcErodeWalkableArea(&ctx, cfg.walkableRadius, *chf), "erode the walkable area");
    // Watershed partitioning, as habitat-sim: the best polygons for large open rooms.
    require(rcBuildDistanceField(&ctx, *chf), "build the distance field");
    require(rcBuildRegions(&ctx, *chf, 0, cfg.minRegionArea, cfg.mergeRegionArea), "build regions");
    return chf;
}

struct PolyMeshes {
    PolyMesh mesh;
    PolyMeshDetail detail;
};

PolyMeshes build_polygons(rcContext& ctx, const rcConfig& cfg, rcCompactHeightfield& chf) {
    ContourSet contours(rcAllocContourSet());
    require(contours &&
                rcBuildContours(&ctx, chf, cfg.maxSimplificationError, cfg.maxEdgeLen, *contours),
            "build contours");
    PolyMeshes out{PolyMesh(rcAllocPolyMesh()), PolyMeshDetail(rcAllocPolyMeshDetail())};
    require(out.mesh && rcBuildPolyMesh(&ctx, *contours, cfg.maxVertsPerPoly, *out.mesh),
            "build polygons");
    require(out.detail && rcBuildPolyMeshDetail(&ctx, *out.mesh, chf, cfg.detailSampleDist,
                                                cfg.detailSampleMaxError, *out.detail),
            "build the detail mesh");
    BATCHSIM_CHECK(out.mesh->npolys > 0, CorruptData,
                   "the scene has no walkable surface for this agent (no navmesh polygons)");
    for (int i = 0; i < out.mesh->npolys; ++i) {
        if (out.mesh->areas[i] == RC_WALKABLE_AREA) out.mesh->areas[i] = kGroundArea;
        out.mesh->flags[i] = out.mesh->areas[i] == kGroundArea ? kWalkFlag : 0;
    }
    return out;
}

std::vector<std::uint8_t> detour_image(const PolyMeshes& polys, const rcConfig& cfg,
                                       const NavMeshSettings& settings) {
    const rcPolyMesh& pm = *polys.mesh;
    const rcPolyMeshDetail& dm = *polys.detail;
    dtNavMeshCreateParams params{};
    params.verts = pm.verts, params.vertCount = pm.nverts, params.polys = pm.polys;
    params.polyAreas = pm.areas, params.polyFlags = pm.flags, params.polyCount = pm.npolys;
    params.nvp = pm.nvp, params.detailMeshes = dm.meshes, params.detailVerts = dm.verts;
    params.detailVertsCount = dm.nverts, params.detailTris = dm.tris;
    params.detailTriCount = dm.ntris, params.walkableHeight = settings.agent_height;
    params.walkableRadius = settings.agent_radius, params.walkableClimb = settings.agent_max_climb;
    rcVcopy(params.bmin, pm.bmin), rcVcopy(params.bmax, pm.bmax);
    params.cs = cfg.cs, params.ch = cfg.ch, params.buildBvTree = true;
    unsigned char* data = nullptr;
    int size = 0;
    require(dtCreateNavMeshData(&params, &data, &size), "create Detour navmesh data");
    std::unique_ptr<unsigned char, void (*)(void*)> owned(data, dtFree);
    // A single tile at the mesh origin, the layout habitat-sim saves for baked meshes.
    NavMeshImage image;
    image.settings = settings;
    rcVcopy(image.params.orig, pm.bmin);
    image.params.tileWidth = pm.bmax[0] - pm.bmin[0];
    image.params.tileHeight = pm.bmax[2] - pm.bmin[2];
    image.params.maxTiles = 1;
    image.params.maxPolys = pm.npolys;
    // Tile 0 with salt 1 (tile bits 0 for one tile): the ref habitat-sim saves.
    const unsigned poly_bits = dtIlog2(dtNextPow2(static_cast<unsigned>(pm.npolys)));
    image.tiles.push_back({dtTileRef{1} << poly_bits, {data, static_cast<std::size_t>(size)}});
    return write_habitat_navmesh(image);
}

}  // namespace

void validate(const NavMeshSettings& s) {
    auto positive = [](float value, const char* name) {
        BATCHSIM_CHECK(std::isfinite(value) && value > 0, InvalidArgument,
                       str("NavMeshSettings.", name, " must be a positive number, got ", value));
    };
    positive(s.cell_size, "cell_size"), positive(s.cell_height, "cell_height");
    positive(s.agent_height, "agent_height"), positive(s.edge_max_error, "edge_max_error");
    auto non_negative = [](float value, const char* name) {
        BATCHSIM_CHECK(std::isfinite(value) && value >= 0, InvalidArgument,
                       str("NavMeshSettings.", name, " must be >= 0, got ", value));
    };
    non_negative(s.agent_radius, "agent_radius"),
        non_negative(s.agent_max_climb, "agent_max_climb");
    non_negative(s.region_min_size, "region_min_size");
    non_negative(s.region_merge_size, "region_merge_size");
    non_negative(s.edge_max_len, "edge_max_len");
    non_negative(s.detail_sample_dist, "detail_sample_dist");
    non_negative(s.detail_sample_max_error, "detail_sample_max_error");
    BATCHSIM_CHECK(
        s.agent_max_slope >= 0 && s.agent_max_slope < 90, InvalidArgument,
        str("NavMeshSettings.agent_max_slope must be in [0, 90) degrees, got ", s.agent_max_slope));
    BATCHSIM_CHECK(s.verts_per_poly >= 3 && s.verts_per_poly <= DT_VERTS_PER_POLYGON,
                   InvalidArgument,
                   str("NavMeshSettings.verts_per_poly must be in [3, ", DT_VERTS_PER_POLYGON,
                       "], got ", s.verts_per_poly));
}

std::vector<std::uint8_t> bake_navmesh(std::span<const float> positions,
                                       std::span<const std::uint32_t> indices,
                                       const NavMeshSettings& settings) {
    validate(settings);
    check_geometry(positions, indices);
    rcContext ctx(false);
    const rcConfig cfg = recast_config(settings, positions);
    BATCHSIM_CHECK(cfg.width > 0 && cfg.height > 0, CorruptData,
                   "navmesh geometry has zero extent in x or z");
    Heightfield solid = rasterize(ctx, cfg, settings, positions, indices);
    CompactHeightfield chf = partition(ctx, cfg, *solid);
    solid.reset();
    return detour_image(build_polygons(ctx, cfg, *chf), cfg, settings);
}

}  // namespace batchsim::nav
