#include "nav/navmesh.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include <DetourAlloc.h>
#include <DetourNavMesh.h>

#include "core/check.hpp"
#include "core/file_io.hpp"
#include "core/strings.hpp"
#include "nav/habitat_format.hpp"
#include "nav/islands.hpp"

namespace batchsim::nav {

struct NavMesh::Impl {
    std::vector<std::uint8_t> habitat_bytes;
    std::unique_ptr<dtNavMesh, void (*)(dtNavMesh*)> mesh{dtAllocNavMesh(), dtFreeNavMesh};
    std::unique_ptr<Islands> islands;  // after `mesh`: destroyed first, it refers to the mesh
    std::array<Vec3, 2> bounds{};
    NavMeshSettings settings;
};

namespace {

// Detour keeps (and later frees) the tile data it is given: hand it a dtAlloc'ed copy.
void add_tile(dtNavMesh& mesh, const NavTileImage& tile, std::size_t index) {
    auto* data = static_cast<unsigned char*>(dtAlloc(tile.data.size(), DT_ALLOC_PERM));
    BATCHSIM_CHECK(data != nullptr, Internal, "out of memory loading a navmesh tile");
    std::memcpy(data, tile.data.data(), tile.data.size());
    const dtStatus status = mesh.addTile(data, static_cast<int>(tile.data.size()),
                                         DT_TILE_FREE_DATA, tile.ref, nullptr);
    if (dtStatusFailed(status)) {
        dtFree(data);
        BATCHSIM_CHECK(false, CorruptData,
                       str("navmesh tile ", index, " (ref ", tile.ref,
                           ") was rejected by Detour: duplicate position or invalid ref"));
    }
}

std::array<Vec3, 2> tile_bounds(const dtNavMesh& mesh) {
    constexpr float inf = std::numeric_limits<float>::infinity();
    std::array<Vec3, 2> bounds{Vec3{inf, inf, inf}, Vec3{-inf, -inf, -inf}};
    for (int t = 0; t < mesh.getMaxTiles(); ++t) {
        const dtMeshHeader* header = mesh.getTile(t)->header;
        if (!header) continue;
        for (int axis = 0; axis < 3; ++axis) {
            bounds[0][axis] = std::min(bounds[0][axis], header->bmin[axis]);
            bounds[1][axis] = std::max(bounds[1][axis], header->bmax[axis]);
        }
    }
    return bounds;
}

}  // namespace

NavMesh::NavMesh(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NavMesh::~NavMesh() = default;

std::shared_ptr<const NavMesh> NavMesh::from_habitat_bytes(std::span<const std::uint8_t> bytes) {
    auto impl = std::make_unique<Impl>();
    impl->habitat_bytes.assign(bytes.begin(), bytes.end());
    const NavMeshImage image = parse_habitat_navmesh(impl->habitat_bytes);
    BATCHSIM_CHECK(impl->mesh != nullptr, Internal, "out of memory creating a navmesh");
    BATCHSIM_CHECK(dtStatusSucceed(impl->mesh->init(&image.params)), CorruptData,
                   str("navmesh parameters rejected by Detour (maxTiles ", image.params.maxTiles,
                       ", maxPolys ", image.params.maxPolys, ")"));
    for (std::size_t i = 0; i < image.tiles.size(); ++i) add_tile(*impl->mesh, image.tiles[i], i);
    disable_zero_area_polygons(*impl->mesh);
    impl->settings = image.settings;
    impl->islands = std::make_unique<Islands>(*impl->mesh);
    BATCHSIM_CHECK(impl->islands->count() > 0, CorruptData, "navmesh has no walkable polygons");
    impl->bounds = tile_bounds(*impl->mesh);
    return std::shared_ptr<const NavMesh>(new NavMesh(std::move(impl)));
}

std::shared_ptr<const NavMesh> NavMesh::load(const std::filesystem::path& path) {
    const std::vector<std::uint8_t> bytes = read_file(path, "navmesh");
    try {
        return from_habitat_bytes(bytes);
    } catch (const Error& error) {
        throw Error(error.kind(), str("'", path.string(), "': ", error.what()));
    }
}

std::shared_ptr<const NavMesh> NavMesh::bake(std::span<const float> positions,
                                             std::span<const std::uint32_t> indices,
                                             const NavMeshSettings& settings) {
    return from_habitat_bytes(bake_navmesh(positions, indices, settings));
}

const std::vector<std::uint8_t>& NavMesh::habitat_bytes() const {
    return impl_->habitat_bytes;
}

void NavMesh::save(const std::filesystem::path& path) const {
    const std::span<const std::uint8_t> parts[] = {impl_->habitat_bytes};
    write_file_atomically(path, parts);
}

std::array<Vec3, 2> NavMesh::bounds() const {
    return impl_->bounds;
}
std::array<Vec3, 2> NavMesh::surface_bounds() const {
    constexpr float inf = std::numeric_limits<float>::infinity();
    std::array<Vec3, 2> out{Vec3{inf, inf, inf}, Vec3{-inf, -inf, -inf}};
    const dtNavMesh& mesh = *impl_->mesh;
    for (int t = 0; t < mesh.getMaxTiles(); ++t) {
        const dtMeshTile* tile = mesh.getTile(t);
        if (!tile->header) continue;
        for (int v = 0; v < tile->header->vertCount; ++v) {
            for (std::size_t axis = 0; axis < 3; ++axis) {
                const float value = tile->verts[3 * v + static_cast<int>(axis)];
                out[0][axis] = std::min(out[0][axis], value);
                out[1][axis] = std::max(out[1][axis], value);
            }
        }
    }
    return out;
}
const NavMeshSettings& NavMesh::settings() const {
    return impl_->settings;
}
float NavMesh::navigable_area() const {
    return impl_->islands->total_area();
}
std::size_t NavMesh::polygon_count() const {
    return impl_->islands->polygon_count();
}
int NavMesh::island_count() const {
    return impl_->islands->count();
}

const IslandSummary& NavMesh::island(int island) const {
    BATCHSIM_CHECK(island >= 0 && island < island_count(), InvalidArgument,
                   str("island index ", island, " out of range: the navmesh has ", island_count(),
                       " islands"));
    return impl_->islands->summary(island);
}

const dtNavMesh& NavMesh::detour() const {
    return *impl_->mesh;
}
const Islands& NavMesh::islands() const {
    return *impl_->islands;
}

}  // namespace batchsim::nav
