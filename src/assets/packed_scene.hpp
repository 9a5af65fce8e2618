// The packed scene file: a whole scene (geometry, chunks, materials, textures, navmesh, BVH)
// in one file that loads with one read into one aligned buffer and no parsing (and, for
// version 5 files with deflated sections, one inflate into a second). Records are declared in
// packed_scene_format.hpp.
//
// Layout, version 5, little-endian, every offset from the start of the file:
//
//   0    Header (64 bytes)
//          char[8]  magic "BSSCENE\0"
//          u32      version = 5 (3 and 4 are read too, see below)
//          u32      section_count (at most one section of each kind: <= 11)
//          u64      file_size, the exact size of the file
//          u32      table_crc32: zlib crc32 of the section table
//          u32      header_crc32: crc32 of these 64 bytes with this field zeroed
//          u64      loaded_size: what the sections take in memory once loaded, the sum of
//                   their raw sizes each rounded up to 64 (versions 3 and 4: zero)
//          u8[24]   reserved, zero
//   64   Section table: section_count entries of 32 bytes
//          u32 kind, u32 flags (1 = deflated, else 0), u64 offset, u64 size (in the file),
//          u32 crc32 (of the section's bytes in the file), u32 element_size (the raw size
//          is a multiple of it)
//   ...  Sections, each at a multiple of 64 bytes, after the table, never overlapping.
//        Every byte between and after them is zero, so the checksums cover every byte that
//        carries meaning. Why 64: a cache line, so every element type is aligned once the
//        buffer is; pages (4096) would add up to 36 KiB of padding and buy nothing, since
//        the file is read or mapped whole and sections are never mapped on their own.
//        A deflated section holds u64 raw size, then one zlib stream (RFC 1950) that
//        inflates to exactly that many bytes and ends at the section's end; deflate's
//        limit of 1032:1 bounds the raw size before anything is allocated. Why deflate
//        (zlib level 4) and per section: it is already linked (crc32), inflates a 25 MB
//        procedural scene in about 0.05 s on one core, and section by section keeps the
//        table, the checksums and the zero-copy spans as they were; a 25 MB procedural
//        scene stores in 4.6 MB (docs/scenes.md has the figures).
//
//   kind  name            element                  contents
//   1     info            InfoRecord (64 bytes)    exactly one: finite bounds, counts,
//                                                  up axis (1 = +y), metres per unit (1),
//                                                  source name (offset, length in strings)
//   2     vertices        shared.h Vertex (36)     vertex_count >= 1, floats finite
//   3     indices         u32                      index_count: a multiple of 3, >= 3,
//                                                  each < vertex_count
//   4     chunks          shared.h MeshChunk (48)  cover [0, index_count) exactly once in
//                                                  whole triangles; material < count
//   5     materials       shared.h Material (32)   texture < texture_count or kNoTexture
//   6     texture table   TextureRecord (40)       per texture: size, mips, name, format
//                                                  (0 RGBA8 sRGB, 1 BC1 sRGB), pixel range
//                                                  (= mip_chain_bytes, in order)
//   7     texture pixels  u8                       mip chains, each at a multiple of 64
//   8     navmesh         u8                       Habitat .navmesh image, opaque; optional
//   9     strings         u8                       names, referenced by (offset, length)
//   10    bvh nodes       shared.h BvhNode (64)    >= 1, depth-first (inner children after
//                                                  their parent, node 0 the root), at most
//                                                  BATCHSIM_BVH_MAX_DEPTH nodes on a path,
//                                                  leaf ranges inside bvh triangles and
//                                                  together covering each exactly once
//   11    bvh triangles   shared.h BvhTriangle(48) index_count / 3: corners (finite), scene
//                                                  triangle (< index_count / 3, each once),
//                                                  material (< material_count), pad zero
//
// Kinds 1-7, 9, 10 and 11 are required (possibly empty: a scene without textures has empty
// texture sections). A kind this build does not know is rejected, not skipped: each
// version defines every kind, and a writer that adds one bumps the version (2 added the
// BVH; 3 grew Vertex by its colour; 4 gave textures a format; 5 deflated sections), so that
// no reader silently drops data the writer meant it to use. Version 4 is version 5 without
// deflated sections (flags and loaded_size zero), version 3 is version 4 with RGBA8 textures
// only; the writer writes version 4 unless it deflates, so that uncompressed files stay
// readable by older builds. The writer builds the BVH from the geometry every time
// (assets/bvh.hpp; SceneData does not carry it), deterministically, so that packing a loaded scene
// again gives the same bytes. The writer is declared in packed_scene_writer.hpp; this header is the
// reader.
//
// Loading validates everything before anything is used, and throws Error(CorruptData)
// naming the file and what is wrong: magic, version, sizes, checksums, the section table
// (bounds, alignment, overlap, duplicates, element sizes), counts, index and material
// ranges, chunk coverage, texture sizes against their mip chains, finite floats, the BVH's
// structure (in linear time; nothing is rebuilt); for deflated sections also the declared
// raw sizes (against deflate's limit, loaded_size and the element size) and that each
// stream inflates to exactly its declared size. Other versions are rejected: older files
// (version 1: no BVH, 2: no vertex colour) with the advice to re-import the scene or rebuild
// procedural scenes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "assets/scene_data.hpp"

namespace batchsim::assets {

// Section kinds this build reads (packed_scene_format.hpp names them).
namespace packed {
inline constexpr std::size_t kKindCount = 11;
}

// Skip exists only so that a fuzzer reaches the structural checks behind the checksums (zlib
// checks a deflated section's adler32 either way).
enum class ChecksumPolicy { Verify, Skip };

// A 64-byte aligned byte buffer (what a packed scene loads into); movable, not copyable.
class AlignedBytes {
public:
    AlignedBytes() = default;
    // `size` bytes, uninitialised.
    explicit AlignedBytes(std::size_t size);

    [[nodiscard]] std::uint8_t* data() { return data_.get(); }
    [[nodiscard]] const std::uint8_t* data() const { return data_.get(); }
    [[nodiscard]] std::size_t size() const { return size_; }
    [[nodiscard]] std::span<const std::uint8_t> bytes() const { return {data_.get(), size_}; }

private:
    struct Free {
        void operator()(std::uint8_t* data) const;
    };
    std::unique_ptr<std::uint8_t[], Free> data_;
    std::size_t size_ = 0;
};

// One texture inside a loaded packed scene; pixels hold the whole mip chain.
struct TextureView {
    std::string_view name;
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    std::uint32_t mip_count = 0;
    std::span<const std::uint8_t> pixels;
    TextureFormat format = TextureFormat::Rgba8Srgb;
};

// A validated packed scene. Owns one 64-byte aligned buffer; the accessors return views
// into it, valid as long as this object (moving it keeps them valid).
class PackedScene {
public:
    // One read of the whole file into an aligned buffer, then validation. Throws
    // Error(FileNotFound), Error(Io) or Error(CorruptData); messages name the file.
    static PackedScene load(const std::filesystem::path& path);
    // Copies `bytes` into an aligned buffer and validates them.
    static PackedScene from_bytes(std::span<const std::uint8_t> bytes,
                                  ChecksumPolicy checksums = ChecksumPolicy::Verify);

    [[nodiscard]] std::span<const Vertex> vertices() const;
    [[nodiscard]] std::span<const std::uint32_t> indices() const;
    [[nodiscard]] std::span<const MeshChunk> chunks() const;
    [[nodiscard]] std::span<const Material> materials() const;
    [[nodiscard]] std::size_t texture_count() const;
    // Throws Error(InvalidArgument) if i >= texture_count().
    [[nodiscard]] TextureView texture(std::size_t i) const;
    [[nodiscard]] std::span<const std::uint8_t> navmesh() const;  // empty if none
    [[nodiscard]] std::span<const gpu::BvhNode> bvh_nodes() const;
    [[nodiscard]] std::span<const gpu::BvhTriangle> bvh_triangles() const;
    [[nodiscard]] const Bounds& bounds() const { return bounds_; }
    [[nodiscard]] std::string_view source() const;
    // The file's size (deflated sections as stored).
    [[nodiscard]] std::size_t file_bytes() const { return file_bytes_; }
    // What this scene holds in memory: the file, or for version 5 its sections once loaded.
    [[nodiscard]] std::size_t resident_bytes() const { return buffer_.size(); }
    // The file's format version (3, 4 or 5; 5 when sections are deflated).
    [[nodiscard]] std::uint32_t format_version() const { return format_version_; }

    // A deep copy (round-trip tests, tools that edit a scene), without the BVH: packing
    // the copy builds it again.
    [[nodiscard]] SceneData to_scene_data() const;

private:
    // Validates `file` (read into `buffer`, `size` bytes of it); keeps the buffer, or for a
    // version 5 file the sections loaded from it.
    static PackedScene adopt(AlignedBytes buffer, std::size_t size, ChecksumPolicy checksums,
                             const std::string& origin);
    [[nodiscard]] std::span<const std::uint8_t> section(std::uint32_t kind) const;

    AlignedBytes buffer_;
    std::size_t file_bytes_ = 0;
    std::uint32_t format_version_ = 0;
    std::array<std::span<const std::uint8_t>, packed::kKindCount>
        sections_;  // by kind - 1; empty if absent
    Bounds bounds_;
    std::string_view source_;
};

// The bytes the packed scene at `path` will take once loaded, from its header alone (a
// version 5 file's loaded_size; otherwise the file's size, which is also what a file that is
// not a packed scene, or a damaged one, gives: the loader will name what is wrong). 0 if the
// file cannot be read. For memory plans, before anything is loaded.
std::uint64_t loaded_scene_bytes(const std::filesystem::path& path);

}  // namespace batchsim::assets
