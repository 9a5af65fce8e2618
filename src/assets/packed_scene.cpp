// Packed scene files: the loader and the zero-copy accessors. The format is documented in
// packed_scene.hpp; validation lives in packed_scene_validate*.cpp, deflated sections in
// packed_scene_deflate.cpp, the writer in packed_scene_writer.cpp.
#include "assets/packed_scene.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "assets/packed_scene_format.hpp"
#include "core/check.hpp"
#include "core/file_io.hpp"
#include "core/strings.hpp"

namespace batchsim::assets {
namespace packed {

std::uint32_t crc32(std::span<const std::uint8_t> bytes) {
    return static_cast<std::uint32_t>(
        ::crc32_z(::crc32_z(0, nullptr, 0), bytes.data(), bytes.size()));
}

}  // namespace packed

namespace {

using packed::SectionKind;

std::string origin_of(const std::filesystem::path& path) {
    return str("'", path.string(), "'");
}

}  // namespace

void AlignedBytes::Free::operator()(std::uint8_t* data) const {
    ::operator delete (data, std::align_val_t{packed::kAlignment});
}

AlignedBytes::AlignedBytes(std::size_t size)
    : data_(static_cast<std::uint8_t*>(
          ::operator new (std::max<std::size_t>(size, 1), std::align_val_t{packed::kAlignment}))),
      size_(size) {}

PackedScene PackedScene::adopt(AlignedBytes buffer, std::size_t size, ChecksumPolicy checksums,
                               const std::string& origin) {
    packed::Validated validated = packed::validate({buffer.data(), size}, checksums, origin);
    PackedScene scene;
    scene.file_bytes_ = size;
    scene.format_version_ = packed::record<packed::Header>(buffer.bytes(), 0).version;
    // A version 5 file's sections live in their own buffer; the file's can go.
    scene.buffer_ = validated.loaded.size() > 0 ? std::move(validated.loaded) : std::move(buffer);
    scene.sections_ = validated.sections;
    scene.bounds_ = Bounds{validated.info.bounds_min, validated.info.bounds_max};
    const auto strings = validated.section(SectionKind::Strings);
    scene.source_ = {reinterpret_cast<const char*>(strings.data()) + validated.info.source_offset,
                     validated.info.source_length};
    return scene;
}

PackedScene PackedScene::from_bytes(std::span<const std::uint8_t> bytes, ChecksumPolicy checksums) {
    AlignedBytes buffer(bytes.size());
    if (!bytes.empty()) std::memcpy(buffer.data(), bytes.data(), bytes.size());
    return adopt(std::move(buffer), bytes.size(), checksums, "(in memory)");
}

PackedScene PackedScene::load(const std::filesystem::path& path) {
    require_file(path, "packed scene");
    const OpenFile file = open_for_reading(path, "packed scene");
    AlignedBytes buffer(file.size);
    const std::size_t got = read_chunked(file.fd.get(), {buffer.data(), file.size}, path);
    return adopt(std::move(buffer), got, ChecksumPolicy::Verify, origin_of(path));
}

std::uint64_t loaded_scene_bytes(const std::filesystem::path& path) {
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    if (error) return 0;
    packed::Header header{};
    try {
        const OpenFile file = open_for_reading(path);
        const std::span<std::uint8_t> bytes{reinterpret_cast<std::uint8_t*>(&header),
                                            sizeof(header)};
        if (read_chunked(file.fd.get(), bytes, path) < sizeof(header)) return size;
    } catch (const Error&) {
        return 0;
    }
    packed::Header zeroed = header;
    zeroed.header_crc32 = 0;
    const bool sound = header.magic == packed::kMagic &&
                       packed::crc32({reinterpret_cast<const std::uint8_t*>(&zeroed),
                                      sizeof(zeroed)}) == header.header_crc32;
    const bool deflated =
        header.version >= packed::kDeflateVersion && header.version <= packed::kVersion;
    return sound && deflated ? header.loaded_size : size;
}

std::span<const std::uint8_t> PackedScene::section(std::uint32_t kind) const {
    return sections_[kind - packed::kFirstKind];
}

std::span<const Vertex> PackedScene::vertices() const {
    return packed::as_array<Vertex>(section(std::uint32_t(SectionKind::Vertices)));
}

std::span<const std::uint32_t> PackedScene::indices() const {
    return packed::as_array<std::uint32_t>(section(std::uint32_t(SectionKind::Indices)));
}

std::span<const MeshChunk> PackedScene::chunks() const {
    return packed::as_array<MeshChunk>(section(std::uint32_t(SectionKind::Chunks)));
}

std::span<const Material> PackedScene::materials() const {
    return packed::as_array<Material>(section(std::uint32_t(SectionKind::Materials)));
}

std::size_t PackedScene::texture_count() const {
    return section(std::uint32_t(SectionKind::TextureTable)).size() / sizeof(packed::TextureRecord);
}

TextureView PackedScene::texture(std::size_t i) const {
    BATCHSIM_CHECK(i < texture_count(), InvalidArgument,
                   str("texture ", i, " out of range for ", texture_count(), " textures"));
    packed::TextureRecord r;
    std::memcpy(&r, section(std::uint32_t(SectionKind::TextureTable)).data() + i * sizeof(r),
                sizeof(r));
    const auto strings = section(std::uint32_t(SectionKind::Strings));
    const auto pixels = section(std::uint32_t(SectionKind::TexturePixels));
    return {{reinterpret_cast<const char*>(strings.data()) + r.name_offset, r.name_length},
            r.width,
            r.height,
            r.mip_count,
            pixels.subspan(r.pixel_offset, r.pixel_size),
            static_cast<TextureFormat>(r.format)};
}

std::span<const std::uint8_t> PackedScene::navmesh() const {
    return section(std::uint32_t(SectionKind::NavMesh));
}

std::span<const gpu::BvhNode> PackedScene::bvh_nodes() const {
    return packed::as_array<gpu::BvhNode>(section(std::uint32_t(SectionKind::BvhNodes)));
}

std::span<const gpu::BvhTriangle> PackedScene::bvh_triangles() const {
    return packed::as_array<gpu::BvhTriangle>(section(std::uint32_t(SectionKind::BvhTriangles)));
}

SceneData PackedScene::to_scene_data() const {
    SceneData scene;
    scene.vertices.assign(vertices().begin(), vertices().end());
    scene.indices.assign(indices().begin(), indices().end());
    scene.chunks.assign(chunks().begin(), chunks().end());
    scene.materials.assign(materials().begin(), materials().end());
    for (std::size_t i = 0; i < texture_count(); ++i) {
        const TextureView view = texture(i);
        scene.textures.push_back({std::string(view.name),
                                  view.width,
                                  view.height,
                                  view.mip_count,
                                  {view.pixels.begin(), view.pixels.end()},
                                  view.format});
    }
    scene.navmesh.assign(navmesh().begin(), navmesh().end());
    scene.bounds = bounds_;
    scene.source = std::string(source());
    return scene;
}

std::string_view PackedScene::source() const {
    return source_;
}

}  // namespace batchsim::assets
