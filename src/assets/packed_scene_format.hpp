// The on-disk records of the packed scene format (layout documented in packed_scene.hpp).
// Internal to the reader, the writer and their tests; everything is little-endian and
// read with memcpy (records) or as aligned spans (arrays of shared.h structs).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "assets/packed_scene.hpp"
#include "assets/scene_data.hpp"

namespace batchsim::assets::packed {

static_assert(std::endian::native == std::endian::little, "packed scenes are little-endian");

inline constexpr std::array<char, 8> kMagic{'B', 'S', 'S', 'C', 'E', 'N', 'E', '\0'};
// Version 2 added the BVH sections (kinds 10 and 11); 3 the vertex colour (Vertex: 36 bytes);
// 4 the texture format (TextureRecord::format, once reserved and zero); 5 deflated sections
// (SectionEntry::flags, Header::loaded_size). A version 3 file is a version 4 file with RGBA8
// textures only, and a version 4 file a version 5 file without deflated sections, so the
// reader takes all three. The writer writes the oldest version that holds the file: 4 unless
// it deflates, so that uncompressed files stay readable by builds that predate version 5.
inline constexpr std::uint32_t kVersion = 5;
inline constexpr std::uint32_t kOldestReadableVersion = 3;
inline constexpr std::uint32_t kPlainVersion = 4;    // what the writer writes uncompressed
inline constexpr std::uint32_t kDeflateVersion = 5;  // the first with deflated sections
// Every section starts at a multiple of this: a cache line, more than any element needs,
// and what SIMD loads and GPU staging copies like. Pages (4096) would waste up to 36 KiB
// in small scenes and buy nothing, since the file is read or mapped whole.
inline constexpr std::uint64_t kAlignment = 64;
// Texture levels larger than this are rejected, which also keeps every size computation
// on texture records far from overflow.
inline constexpr std::uint32_t kMaxTextureExtent = 1u << 15;
// Info::up_axis and Info::metres_per_unit: scenes are stored y up, in metres.
inline constexpr std::uint32_t kUpAxisY = 1;

enum class SectionKind : std::uint32_t {
    Info = 1,           // one InfoRecord
    Vertices = 2,       // Vertex[vertex_count]
    Indices = 3,        // uint32[index_count]
    Chunks = 4,         // MeshChunk[chunk_count]
    Materials = 5,      // Material[material_count]
    TextureTable = 6,   // TextureRecord[texture_count]
    TexturePixels = 7,  // mip chains (RGBA8 or BC1), each starting at a multiple of kAlignment
    NavMesh = 8,        // opaque Habitat .navmesh image (optional section)
    Strings = 9,        // UTF-8 bytes referenced by (offset, length) pairs; no terminators
    BvhNodes = 10,      // BvhNode[node_count >= 1], depth-first, node 0 the root
    BvhTriangles = 11,  // BvhTriangle[index_count / 3], in leaf order
};
inline constexpr std::uint32_t kFirstKind = 1;
inline constexpr std::uint32_t kLastKind = 11;
static_assert(kKindCount == kLastKind - kFirstKind + 1);

struct Header {
    std::array<char, 8> magic;
    std::uint32_t version;
    std::uint32_t section_count;
    std::uint64_t file_size;
    std::uint32_t table_crc32;   // crc32 of the section_count table entries
    std::uint32_t header_crc32;  // crc32 of these 64 bytes with this field zeroed
    // Version 5: the bytes the sections take once loaded, sum of align_up(raw size), known
    // before anything is inflated (the memory plan reads it); zero (reserved) before.
    std::uint64_t loaded_size;
    std::array<std::uint8_t, 24> reserved;  // zero
};
static_assert(sizeof(Header) == 64 && offsetof(Header, header_crc32) == 28 &&
              offsetof(Header, loaded_size) == 32);

// SectionEntry::flags bits (version 5; zero before).
inline constexpr std::uint32_t kSectionDeflated = 1;

struct SectionEntry {
    std::uint32_t kind;   // SectionKind
    std::uint32_t flags;  // kSectionDeflated or zero
    std::uint64_t offset;
    std::uint64_t size;          // of the bytes in the file (for a deflated section: stored)
    std::uint32_t crc32;         // of the section's size bytes in the file
    std::uint32_t element_size;  // sizeof one element; the raw section holds n elements
};
static_assert(sizeof(SectionEntry) == 32);

// A deflated section's stored bytes: the raw size (u64), then one zlib stream (RFC 1950,
// whose adler32 checks the inflated bytes) that inflates to exactly that many bytes and ends
// exactly at the section's end. Deflate encodes at best 258 bytes in 2 bits, so a stream of
// n bytes inflates to at most 1032 n: a larger declared size is a lie (or a bomb) and is
// refused before anything is allocated (packed_scene_deflate.cpp).
inline constexpr std::uint64_t kDeflatePrefixBytes = sizeof(std::uint64_t);
inline constexpr std::uint64_t kMaxDeflateRatio = 1032;

struct InfoRecord {
    std::array<float, 3> bounds_min;
    std::array<float, 3> bounds_max;
    std::uint32_t vertex_count;
    std::uint32_t index_count;
    std::uint32_t chunk_count;
    std::uint32_t material_count;
    std::uint32_t texture_count;
    std::uint32_t up_axis;        // kUpAxisY
    float metres_per_unit;        // 1
    std::uint32_t source_offset;  // into Strings
    std::uint32_t source_length;
    std::uint32_t reserved;  // zero
};
static_assert(sizeof(InfoRecord) == 64);

struct TextureRecord {
    std::uint64_t pixel_offset;  // into TexturePixels, a multiple of kAlignment
    std::uint64_t pixel_size;    // mip_chain_bytes(width, height, mip_count, format)
    std::uint32_t width;
    std::uint32_t height;
    std::uint32_t mip_count;
    std::uint32_t name_offset;  // into Strings
    std::uint32_t name_length;
    std::uint32_t format;  // TextureFormat
};
static_assert(sizeof(TextureRecord) == 40);

// The element size each kind must declare.
constexpr std::uint32_t element_size(SectionKind kind) {
    switch (kind) {
        case SectionKind::Info: return sizeof(InfoRecord);
        case SectionKind::Vertices: return sizeof(Vertex);
        case SectionKind::Indices: return sizeof(std::uint32_t);
        case SectionKind::Chunks: return sizeof(MeshChunk);
        case SectionKind::Materials: return sizeof(Material);
        case SectionKind::TextureTable: return sizeof(TextureRecord);
        case SectionKind::BvhNodes: return sizeof(gpu::BvhNode);
        case SectionKind::BvhTriangles: return sizeof(gpu::BvhTriangle);
        default: return 1;
    }
}

// "vertices", "texture table", ... for messages.
constexpr std::string_view section_name(SectionKind kind) {
    switch (kind) {
        case SectionKind::Info: return "info";
        case SectionKind::Vertices: return "vertices";
        case SectionKind::Indices: return "indices";
        case SectionKind::Chunks: return "chunks";
        case SectionKind::Materials: return "materials";
        case SectionKind::TextureTable: return "texture table";
        case SectionKind::TexturePixels: return "texture pixels";
        case SectionKind::NavMesh: return "navmesh";
        case SectionKind::Strings: return "strings";
        case SectionKind::BvhNodes: return "bvh nodes";
        case SectionKind::BvhTriangles: return "bvh triangles";
    }
    return "unknown";
}

constexpr std::uint64_t align_up(std::uint64_t value) {
    return (value + kAlignment - 1) / kAlignment * kAlignment;
}

// A section's bytes as an array of T; the section is aligned and sized for T once validated.
template <typename T>
std::span<const T> as_array(std::span<const std::uint8_t> bytes) {
    return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)};
}

// zlib crc32 of `bytes`.
std::uint32_t crc32(std::span<const std::uint8_t> bytes);

// Recomputes every checksum of a packed scene whose header and table are in place (the
// writer's last step; tests use it to corrupt contents behind valid checksums). Leaves
// what does not fit in `file` alone.
void seal(std::span<std::uint8_t> file);

// What validation hands the reader: each section's raw bytes by kind - 1 (empty if absent),
// the info record, and for a version 5 file the buffer the sections were inflated or copied
// into (the spans point into it; moving it keeps them valid). Other versions' sections
// point into the file.
struct Validated {
    std::array<std::span<const std::uint8_t>, kKindCount> sections;
    InfoRecord info;
    AlignedBytes loaded;

    [[nodiscard]] std::span<const std::uint8_t> section(SectionKind kind) const {
        return sections[static_cast<std::size_t>(kind) - kFirstKind];
    }
};

// Checks everything the layout comment in packed_scene.hpp promises, inflating deflated
// sections; throws Error(CorruptData) with "packed scene <origin>: <what is wrong>". `file`
// must be aligned to 8 bytes at least.
Validated validate(std::span<const std::uint8_t> file, ChecksumPolicy checksums,
                   std::string_view origin);

// The contents part of validate (packed_scene_validate_contents.cpp), run on the raw sections:
// counts against the info record, vertices, indices, chunks, materials, textures.
void check_contents(const Validated& validated, std::string_view origin);

// offset + size <= limit, without overflow.
constexpr bool fits(std::uint64_t offset, std::uint64_t size, std::uint64_t limit) {
    return offset <= limit && size <= limit - offset;
}

// Element `index` of `bytes` seen as an array of T (any alignment).
template <typename T>
T record(std::span<const std::uint8_t> bytes, std::size_t index) {
    T out;
    std::memcpy(&out, bytes.data() + index * sizeof(T), sizeof(T));
    return out;
}

// "0x1f" for messages.
std::string hex(std::uint32_t value);

// The BVH part of validate (packed_scene_validate_bvh.cpp), run once the other sections
// are known to be sound: counts, child and leaf ranges, depth, exactly-once coverage of
// the triangles, their scene triangles, materials and corners. O(nodes + triangles).
void validate_bvh(const Validated& validated, std::string_view origin);

}  // namespace batchsim::assets::packed
