#include "nav/habitat_format.hpp"

#include <cmath>
#include <cstring>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::nav {
namespace {

constexpr float kMinTileSize = 0.1f;

struct NavMeshSetHeader {
    std::int32_t magic;
    std::int32_t version;
    std::int32_t tile_count;
    dtNavMeshParams params;
};
static_assert(sizeof(NavMeshSetHeader) == 40);

// habitat-sim's NavMeshSettings as fwrite stores it (vertsPerPoly is a float there).
struct RawNavMeshSettings {
    float cell_size, cell_height, agent_height, agent_radius, agent_max_climb, agent_max_slope,
        region_min_size, region_merge_size, edge_max_len, edge_max_error, verts_per_poly,
        detail_sample_dist, detail_sample_max_error;
    // C++ bools on disk; read as bytes, since a corrupted file may hold any value there.
    std::uint8_t filter_low_hanging_obstacles, filter_ledge_spans, filter_walkable_low_height_spans,
        include_static_objects;
};
static_assert(sizeof(RawNavMeshSettings) == 56);

struct NavMeshTileHeader {
    dtTileRef ref;
    std::int32_t data_size;
};
static_assert(sizeof(NavMeshTileHeader) == 8, "habitat-sim uses 32-bit dtPolyRef");

// Reads a trivially copyable T at `offset`, or throws naming `what` if the bytes end first.
template <typename T>
T read_at(std::span<const std::uint8_t> bytes, std::size_t offset, const char* what) {
    BATCHSIM_CHECK(offset <= bytes.size() && bytes.size() - offset >= sizeof(T), CorruptData,
                   str("navmesh truncated: ", what, " needs ", sizeof(T), " bytes at offset ",
                       offset, " but the file has ", bytes.size()));
    T value;
    std::memcpy(&value, bytes.data() + offset, sizeof(T));
    return value;
}

void validate_params(const dtNavMeshParams& params) {
    // Queries visit every tile their search box overlaps: tiny tiles would make a 4 m box
    // cover billions of them. Real tiles are metres wide.
    bool in_range = params.tileWidth >= kMinTileSize && params.tileHeight >= kMinTileSize;
    for (float value :
         {params.orig[0], params.orig[1], params.orig[2], params.tileWidth, params.tileHeight})
        in_range = in_range && std::fabs(value) <= kMaxNavCoordinate;
    BATCHSIM_CHECK(in_range, CorruptData,
                   str("navmesh parameters are not finite, out of range, or have tiles smaller "
                       "than ",
                       kMinTileSize, " m"));
    // Detour allocates maxTiles tile slots up front: bound it so a corrupted count cannot
    // request gigabytes. 2^16 tiles of 2^16 polygons exceeds any real scene.
    BATCHSIM_CHECK(params.maxTiles >= 1 && params.maxTiles <= (1 << 16), CorruptData,
                   str("navmesh maxTiles ", params.maxTiles, " outside [1, 65536]"));
    BATCHSIM_CHECK(params.maxPolys >= 1 && params.maxPolys <= (1 << 16), CorruptData,
                   str("navmesh maxPolys ", params.maxPolys, " outside [1, 65536]"));
}

NavMeshSetHeader read_set_header(std::span<const std::uint8_t> bytes) {
    const auto header = read_at<NavMeshSetHeader>(bytes, 0, "the MSET header");
    BATCHSIM_CHECK(header.magic == kNavMeshSetMagic, CorruptData,
                   str("not a Habitat .navmesh file: bad magic 0x", std::hex, header.magic,
                       " (expected 0x", kNavMeshSetMagic, " 'MSET')"));
    BATCHSIM_CHECK(
        header.version == 1 || header.version == 2, CorruptData,
        str("unsupported .navmesh version ", header.version, " (batchsim reads versions 1 and 2)"));
    BATCHSIM_CHECK(header.tile_count >= 1 && header.tile_count <= header.params.maxTiles,
                   CorruptData,
                   str("navmesh tile count ", header.tile_count,
                       " outside [1, maxTiles = ", header.params.maxTiles, "]"));
    validate_params(header.params);
    return header;
}

NavMeshSettings from_raw(const RawNavMeshSettings& raw) {
    NavMeshSettings s;
    s.cell_size = raw.cell_size, s.cell_height = raw.cell_height;
    s.agent_height = raw.agent_height, s.agent_radius = raw.agent_radius;
    s.agent_max_climb = raw.agent_max_climb, s.agent_max_slope = raw.agent_max_slope;
    s.region_min_size = raw.region_min_size, s.region_merge_size = raw.region_merge_size;
    s.edge_max_len = raw.edge_max_len, s.edge_max_error = raw.edge_max_error;
    BATCHSIM_CHECK(raw.verts_per_poly >= 3 && raw.verts_per_poly <= DT_VERTS_PER_POLYGON,
                   CorruptData, "navmesh settings: vertsPerPoly outside [3, 6]");
    s.verts_per_poly = static_cast<int>(raw.verts_per_poly);
    s.detail_sample_dist = raw.detail_sample_dist;
    s.detail_sample_max_error = raw.detail_sample_max_error;
    s.filter_low_hanging_obstacles = raw.filter_low_hanging_obstacles != 0;
    s.filter_ledge_spans = raw.filter_ledge_spans != 0;
    s.filter_walkable_low_height_spans = raw.filter_walkable_low_height_spans != 0;
    try {
        validate(s);
    } catch (const Error& error) {
        throw Error(Error::Kind::CorruptData, str("navmesh settings: ", error.what()));
    }
    return s;
}

RawNavMeshSettings to_raw(const NavMeshSettings& s) {
    return {s.cell_size,
            s.cell_height,
            s.agent_height,
            s.agent_radius,
            s.agent_max_climb,
            s.agent_max_slope,
            s.region_min_size,
            s.region_merge_size,
            s.edge_max_len,
            s.edge_max_error,
            static_cast<float>(s.verts_per_poly),
            s.detail_sample_dist,
            s.detail_sample_max_error,
            std::uint8_t{s.filter_low_hanging_obstacles},
            std::uint8_t{s.filter_ledge_spans},
            std::uint8_t{s.filter_walkable_low_height_spans},
            0};
}

}  // namespace

NavMeshImage parse_habitat_navmesh(std::span<const std::uint8_t> bytes) {
    const NavMeshSetHeader header = read_set_header(bytes);
    NavMeshImage image{header.params, {}, {}};
    std::size_t offset = sizeof(NavMeshSetHeader);
    if (header.version == 2) {
        image.settings = from_raw(read_at<RawNavMeshSettings>(bytes, offset, "the settings"));
        offset += sizeof(RawNavMeshSettings);
    }
    for (std::int32_t i = 0; i < header.tile_count; ++i) {
        const auto tile = read_at<NavMeshTileHeader>(bytes, offset, "a tile header");
        offset += sizeof(NavMeshTileHeader);
        if (tile.ref == 0 || tile.data_size == 0) break;  // habitat-sim's end marker
        BATCHSIM_CHECK(
            tile.data_size > 0 && bytes.size() - offset >= static_cast<std::size_t>(tile.data_size),
            CorruptData,
            str("navmesh truncated: tile ", i, " claims ", tile.data_size, " bytes but ",
                bytes.size() - offset, " remain"));
        const auto data = bytes.subspan(offset, static_cast<std::size_t>(tile.data_size));
        validate_tile_data(data, header.params.maxPolys);
        image.tiles.push_back({tile.ref, data});
        offset += data.size();
    }
    BATCHSIM_CHECK(!image.tiles.empty(), CorruptData, "navmesh contains no tiles");
    return image;
}

std::vector<std::uint8_t> write_habitat_navmesh(const NavMeshImage& image) {
    NavMeshSetHeader header{kNavMeshSetMagic, kNavMeshSetVersion,
                            static_cast<std::int32_t>(image.tiles.size()), image.params};
    const RawNavMeshSettings settings = to_raw(image.settings);
    std::vector<std::uint8_t> bytes(sizeof(header) + sizeof(settings));
    std::memcpy(bytes.data(), &header, sizeof(header));
    std::memcpy(bytes.data() + sizeof(header), &settings, sizeof(settings));
    for (const NavTileImage& tile : image.tiles) {
        const NavMeshTileHeader tile_header{tile.ref, static_cast<std::int32_t>(tile.data.size())};
        const auto* raw = reinterpret_cast<const std::uint8_t*>(&tile_header);
        bytes.insert(bytes.end(), raw, raw + sizeof(tile_header));
        bytes.insert(bytes.end(), tile.data.begin(), tile.data.end());
    }
    return bytes;
}

}  // namespace batchsim::nav
