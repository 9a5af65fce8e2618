// validate_tile_data: Detour trusts every count and index inside a tile, so a corrupted
// .navmesh would make it read out of bounds. These checks mirror what dtNavMesh::addTile
// and the queries dereference.
#include <cmath>
#include <cstring>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "nav/habitat_format.hpp"

namespace batchsim::nav {
namespace {

constexpr std::size_t align4(std::size_t n) {
    return (n + 3) & ~std::size_t{3};
}

// Byte offsets of a tile's arrays, in the order dtNavMesh::addTile lays them out.
struct TileLayout {
    std::size_t verts, polys, links, detail_meshes, detail_verts, detail_tris, bv_tree, off_mesh,
        end;
};

TileLayout layout_of(const dtMeshHeader& h) {
    auto count = [](int n) { return static_cast<std::size_t>(n); };
    TileLayout at{};
    at.verts = align4(sizeof(dtMeshHeader));
    at.polys = at.verts + align4(sizeof(float) * 3 * count(h.vertCount));
    at.links = at.polys + align4(sizeof(dtPoly) * count(h.polyCount));
    at.detail_meshes = at.links + align4(sizeof(dtLink) * count(h.maxLinkCount));
    at.detail_verts = at.detail_meshes + align4(sizeof(dtPolyDetail) * count(h.detailMeshCount));
    at.detail_tris = at.detail_verts + align4(sizeof(float) * 3 * count(h.detailVertCount));
    at.bv_tree = at.detail_tris + align4(4 * count(h.detailTriCount));
    at.off_mesh = at.bv_tree + align4(sizeof(dtBVNode) * count(h.bvNodeCount));
    at.end = at.off_mesh + align4(sizeof(dtOffMeshConnection) * count(h.offMeshConCount));
    return at;
}

template <typename T>
T element(std::span<const std::uint8_t> data, std::size_t base, std::size_t index) {
    T value;
    std::memcpy(&value, data.data() + base + index * sizeof(T), sizeof(T));
    return value;
}

void check_finite(std::span<const std::uint8_t> data, std::size_t base, std::size_t floats,
                  const char* what) {
    for (std::size_t i = 0; i < floats; ++i)
        BATCHSIM_CHECK(std::fabs(element<float>(data, base, i)) <= kMaxNavCoordinate, CorruptData,
                       str("navmesh tile has a non-finite or out-of-range ", what, " coordinate"));
}

void check_header(const dtMeshHeader& h, std::size_t data_size, int max_polys) {
    BATCHSIM_CHECK(h.magic == DT_NAVMESH_MAGIC && h.version == DT_NAVMESH_VERSION, CorruptData,
                   str("navmesh tile has bad magic/version ", h.magic, "/", h.version,
                       " (expected Detour tile version ", DT_NAVMESH_VERSION, ")"));
    const bool counts_ok = h.polyCount >= 1 && h.polyCount <= max_polys && h.vertCount >= 3 &&
                           h.vertCount <= 0xffff && h.maxLinkCount >= 0 &&
                           h.detailMeshCount == h.polyCount && h.detailVertCount >= 0 &&
                           h.detailTriCount >= 0 && h.bvNodeCount >= 0;
    BATCHSIM_CHECK(
        counts_ok, CorruptData,
        str("navmesh tile has invalid counts: ", h.polyCount, " polygons (max ", max_polys, "), ",
            h.vertCount, " vertices, ", h.detailMeshCount, " detail meshes"));
    // batchsim, like habitat-sim, never creates off-mesh connections.
    BATCHSIM_CHECK(h.offMeshConCount == 0 && h.offMeshBase == h.polyCount, CorruptData,
                   "navmesh tile has off-mesh connections, which are not supported");
    BATCHSIM_CHECK(layout_of(h).end <= data_size, CorruptData,
                   str("navmesh tile truncated: its counts need ", layout_of(h).end,
                       " bytes, the tile has ", data_size));
    const float coordinates[] = {h.walkableHeight, h.walkableRadius, h.walkableClimb,
                                 h.bmin[0],        h.bmin[1],        h.bmin[2],
                                 h.bmax[0],        h.bmax[1],        h.bmax[2]};
    for (float value : coordinates)
        BATCHSIM_CHECK(std::fabs(value) <= kMaxNavCoordinate, CorruptData,
                       "navmesh tile header is not finite or out of range");
    // Queries quantise positions inside the tile bounds to 16 bits with this factor.
    for (int axis = 0; axis < 3 && h.bvNodeCount > 0; ++axis)
        BATCHSIM_CHECK(h.bvQuantFactor > 0 && h.bmax[axis] >= h.bmin[axis] &&
                           (h.bmax[axis] - h.bmin[axis]) * h.bvQuantFactor <= 65535.0f,
                       CorruptData, "navmesh tile BV-tree quantisation is out of range");
}

void check_polys(std::span<const std::uint8_t> data, const dtMeshHeader& h, const TileLayout& at) {
    for (int p = 0; p < h.polyCount; ++p) {
        const auto poly = element<dtPoly>(data, at.polys, static_cast<std::size_t>(p));
        BATCHSIM_CHECK(poly.getType() == DT_POLYTYPE_GROUND && poly.vertCount >= 3 &&
                           poly.vertCount <= DT_VERTS_PER_POLYGON,
                       CorruptData, str("navmesh polygon ", p, " has a bad type or vertex count"));
        for (int k = 0; k < poly.vertCount; ++k) {
            BATCHSIM_CHECK(
                poly.verts[k] < h.vertCount, CorruptData,
                str("navmesh polygon ", p, " uses vertex ", poly.verts[k], " of ", h.vertCount));
            const unsigned nei = poly.neis[k];
            BATCHSIM_CHECK((nei & DT_EXT_LINK) != 0 || nei <= static_cast<unsigned>(h.polyCount),
                           CorruptData,
                           str("navmesh polygon ", p, " has neighbour ", nei, " of ", h.polyCount));
        }
    }
}

// Detour's closestPointOnPoly walks a polygon's detail triangles for a boundary edge and
// dereferences it unconditionally: every polygon needs one (Recast always flags them).
constexpr unsigned kAnyBoundaryEdge = DT_DETAIL_EDGE_BOUNDARY * (1u | 1u << 2 | 1u << 4);

void check_detail(std::span<const std::uint8_t> data, const dtMeshHeader& h, const TileLayout& at) {
    for (int p = 0; p < h.polyCount; ++p) {
        const auto poly = element<dtPoly>(data, at.polys, static_cast<std::size_t>(p));
        const auto detail =
            element<dtPolyDetail>(data, at.detail_meshes, static_cast<std::size_t>(p));
        const bool ranges_ok =
            std::size_t{detail.vertBase} + detail.vertCount <= std::size_t(h.detailVertCount) &&
            std::size_t{detail.triBase} + detail.triCount <= std::size_t(h.detailTriCount);
        BATCHSIM_CHECK(ranges_ok, CorruptData,
                       str("navmesh detail mesh ", p, " exceeds the detail arrays"));
        bool has_boundary = false;
        for (unsigned t = 0; t < detail.triCount; ++t) {
            const std::size_t tri = at.detail_tris + 4 * (std::size_t{detail.triBase} + t);
            for (unsigned corner = 0; corner < 3; ++corner)
                BATCHSIM_CHECK(
                    data[tri + corner] < poly.vertCount + detail.vertCount, CorruptData,
                    str("navmesh detail triangle of polygon ", p, " uses a vertex out of range"));
            has_boundary = has_boundary || (data[tri + 3] & kAnyBoundaryEdge) != 0;
        }
        BATCHSIM_CHECK(has_boundary, CorruptData,
                       str("navmesh detail mesh of polygon ", p, " has no boundary edge"));
    }
}

void check_bv_tree(std::span<const std::uint8_t> data, const dtMeshHeader& h,
                   const TileLayout& at) {
    for (int n = 0; n < h.bvNodeCount; ++n) {
        const int i = element<dtBVNode>(data, at.bv_tree, static_cast<std::size_t>(n)).i;
        // Leaves name a polygon; inner nodes hold -(nodes to skip), which must stay in the tree.
        const bool ok = i >= 0 ? i < h.polyCount : (i > -(1 << 30) && n - i <= h.bvNodeCount);
        BATCHSIM_CHECK(ok, CorruptData, str("navmesh BV-tree node ", n, " has bad index ", i));
    }
}

}  // namespace

void validate_tile_data(std::span<const std::uint8_t> data, int max_polys) {
    BATCHSIM_CHECK(data.size() >= sizeof(dtMeshHeader), CorruptData,
                   str("navmesh tile of ", data.size(), " bytes is smaller than its header"));
    dtMeshHeader header;
    std::memcpy(&header, data.data(), sizeof(header));
    check_header(header, data.size(), max_polys);
    const TileLayout at = layout_of(header);
    check_finite(data, at.verts, 3 * std::size_t(header.vertCount), "vertex");
    check_finite(data, at.detail_verts, 3 * std::size_t(header.detailVertCount), "detail vertex");
    check_polys(data, header, at);
    check_detail(data, header, at);
    check_bv_tree(data, header, at);
}

}  // namespace batchsim::nav
