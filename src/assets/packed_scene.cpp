// Packed scene files: the writer, the loader and the zero-copy accessors. The format is
// documented in packed_scene.hpp; validation lives in packed_scene_validate.cpp.
#include "assets/packed_scene.hpp"

#include <zlib.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>
#include <new>

#include "assets/bvh.hpp"
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

namespace {

void seal_table(std::span<std::uint8_t> file, Header& header) {
    if (header.section_count > (file.size() - sizeof(Header)) / sizeof(SectionEntry)) return;
    const auto table = file.subspan(sizeof(Header), header.section_count * sizeof(SectionEntry));
    for (std::size_t i = 0; i < header.section_count; ++i) {
        SectionEntry entry;
        std::memcpy(&entry, table.data() + i * sizeof(entry), sizeof(entry));
        if (entry.offset > file.size() || entry.size > file.size() - entry.offset) continue;
        entry.crc32 = crc32(file.subspan(entry.offset, entry.size));
        std::memcpy(table.data() + i * sizeof(entry), &entry, sizeof(entry));
    }
    header.table_crc32 = crc32(table);
}

}  // namespace

void seal(std::span<std::uint8_t> file) {
    Header header;
    if (file.size() < sizeof(header)) return;
    std::memcpy(&header, file.data(), sizeof(header));
    seal_table(file, header);
    header.header_crc32 = 0;
    header.header_crc32 = crc32({reinterpret_cast<const std::uint8_t*>(&header), sizeof(header)});
    std::memcpy(file.data(), &header, sizeof(header));
}

}  // namespace packed

namespace {

using packed::SectionKind;

template <typename T>
std::span<const std::uint8_t> bytes_of(std::span<const T> items) {
    return {reinterpret_cast<const std::uint8_t*>(items.data()), items.size_bytes()};
}

std::uint32_t checked_u32(std::size_t value, const char* what, const SceneData& scene) {
    BATCHSIM_CHECK(value <= std::numeric_limits<std::uint32_t>::max(), InvalidArgument,
                   str("scene '", scene.source, "' has ", value, " ", what,
                       ": a packed scene holds at most 2^32 - 1"));
    return static_cast<std::uint32_t>(value);
}

// Appends sections after a reserved header and table, each at an aligned offset.
class FileBuilder {
public:
    explicit FileBuilder(std::uint32_t section_count)
        : out_(packed::align_up(sizeof(packed::Header) +
                                section_count * sizeof(packed::SectionEntry))),
          section_count_(section_count) {}

    void begin(SectionKind kind) {
        pad();
        entries_.push_back(
            {static_cast<std::uint32_t>(kind), 0, out_.size(), 0, 0, packed::element_size(kind)});
    }
    void append(std::span<const std::uint8_t> bytes) {
        out_.insert(out_.end(), bytes.begin(), bytes.end());
        entries_.back().size = out_.size() - entries_.back().offset;
    }
    void pad() { out_.resize(packed::align_up(out_.size())); }
    void add(SectionKind kind, std::span<const std::uint8_t> bytes) {
        begin(kind);
        append(bytes);
    }
    [[nodiscard]] std::size_t section_size() const { return out_.size() - entries_.back().offset; }

    std::vector<std::uint8_t> finish() {
        assert(entries_.size() == section_count_);
        packed::Header header{};
        header.magic = packed::kMagic;
        header.version = packed::kVersion;
        header.section_count = section_count_;
        header.file_size = out_.size();
        std::memcpy(out_.data(), &header, sizeof(header));
        std::memcpy(out_.data() + sizeof(header), entries_.data(),
                    entries_.size() * sizeof(packed::SectionEntry));
        packed::seal(out_);
        return std::move(out_);
    }

private:
    std::vector<std::uint8_t> out_;
    std::vector<packed::SectionEntry> entries_;
    std::uint32_t section_count_;
};

// Source name first, then texture names; records point into it.
std::string strings_of(const SceneData& scene) {
    std::string strings = scene.source;
    for (const auto& texture : scene.textures) strings += texture.name;
    checked_u32(strings.size(), "bytes of names", scene);
    return strings;
}

packed::InfoRecord info_of(const SceneData& scene) {
    packed::InfoRecord info{};
    info.bounds_min = scene.bounds.min;
    info.bounds_max = scene.bounds.max;
    info.vertex_count = checked_u32(scene.vertices.size(), "vertices", scene);
    info.index_count = checked_u32(scene.indices.size(), "indices", scene);
    info.chunk_count = checked_u32(scene.chunks.size(), "chunks", scene);
    info.material_count = checked_u32(scene.materials.size(), "materials", scene);
    info.texture_count = checked_u32(scene.textures.size(), "textures", scene);
    info.up_axis = packed::kUpAxisY;
    info.metres_per_unit = 1.0f;
    info.source_length = static_cast<std::uint32_t>(scene.source.size());
    return info;
}

std::vector<packed::TextureRecord> texture_records(const SceneData& scene) {
    std::vector<packed::TextureRecord> records;
    std::uint64_t pixel_offset = 0;
    auto name_offset = static_cast<std::uint32_t>(scene.source.size());
    for (const auto& texture : scene.textures) {
        packed::TextureRecord r{};
        r.pixel_offset = pixel_offset;
        r.pixel_size = texture.pixels.size();
        r.width = texture.width;
        r.height = texture.height;
        r.mip_count = texture.mip_count;
        r.name_offset = name_offset;
        r.name_length = static_cast<std::uint32_t>(texture.name.size());
        records.push_back(r);
        pixel_offset = packed::align_up(pixel_offset + r.pixel_size);
        name_offset += r.name_length;
    }
    return records;
}

void add_sections(FileBuilder& file, const SceneData& scene, const Bvh& bvh) {
    const packed::InfoRecord info = info_of(scene);
    const std::string strings = strings_of(scene);
    const auto records = texture_records(scene);
    file.add(SectionKind::Info, bytes_of(std::span{&info, 1}));
    file.add(SectionKind::Vertices, bytes_of(std::span{scene.vertices}));
    file.add(SectionKind::Indices, bytes_of(std::span{scene.indices}));
    file.add(SectionKind::Chunks, bytes_of(std::span{scene.chunks}));
    file.add(SectionKind::Materials, bytes_of(std::span{scene.materials}));
    file.add(SectionKind::BvhNodes, bytes_of(std::span{bvh.nodes}));
    file.add(SectionKind::BvhTriangles, bytes_of(std::span{bvh.triangles}));
    file.add(SectionKind::TextureTable, bytes_of(std::span{records}));
    file.begin(SectionKind::TexturePixels);
    for (std::size_t i = 0; i < records.size(); ++i) {
        file.append(std::vector<std::uint8_t>(records[i].pixel_offset - file.section_size()));
        file.append(scene.textures[i].pixels);
    }
    file.add(SectionKind::Strings, bytes_of(std::span{strings.data(), strings.size()}));
    if (!scene.navmesh.empty()) file.add(SectionKind::NavMesh, scene.navmesh);
}

std::string origin_of(const std::filesystem::path& path) {
    return str("'", path.string(), "'");
}

// The scene's BVH; geometry it cannot be built from is the caller's InvalidArgument.
Bvh bvh_of(const SceneData& scene) {
    try {
        return build_bvh(scene.vertices, scene.indices, scene.chunks);
    } catch (const Error& error) {
        throw Error(error.kind(), str("cannot pack scene '", scene.source, "': ", error.what()));
    }
}

}  // namespace

std::vector<std::uint8_t> pack_scene(const SceneData& scene) {
    const auto section_count = std::uint32_t(packed::kKindCount - (scene.navmesh.empty() ? 1 : 0));
    FileBuilder file(section_count);
    add_sections(file, scene, bvh_of(scene));
    std::vector<std::uint8_t> bytes = file.finish();
    try {  // never write a file that would not load
        packed::validate(bytes, ChecksumPolicy::Skip, str("for scene '", scene.source, "'"));
    } catch (const Error& error) {
        throw Error(Error::Kind::InvalidArgument, str("cannot pack: ", error.what()));
    }
    return bytes;
}

void write_packed_scene(const std::filesystem::path& path, const SceneData& scene) {
    const std::vector<std::uint8_t> bytes = pack_scene(scene);
    const std::array parts{std::span<const std::uint8_t>{bytes}};
    write_file_atomically(path, parts);
}

void PackedScene::FreeAligned::operator()(std::uint8_t* data) const {
    ::operator delete (data, std::align_val_t{packed::kAlignment});
}

std::unique_ptr<std::uint8_t[], PackedScene::FreeAligned> PackedScene::allocate(std::size_t size) {
    return std::unique_ptr<std::uint8_t[], FreeAligned>(static_cast<std::uint8_t*>(
        ::operator new (std::max<std::size_t>(size, 1), std::align_val_t{packed::kAlignment})));
}

PackedScene PackedScene::adopt(std::unique_ptr<std::uint8_t[], FreeAligned> buffer,
                               std::size_t size, ChecksumPolicy checksums,
                               const std::string& origin) {
    const packed::Validated validated = packed::validate({buffer.get(), size}, checksums, origin);
    PackedScene scene;
    scene.buffer_ = std::move(buffer);
    scene.size_ = size;
    scene.sections_ = validated.sections;
    scene.bounds_ = Bounds{validated.info.bounds_min, validated.info.bounds_max};
    const auto strings = validated.section(SectionKind::Strings);
    scene.source_ = {reinterpret_cast<const char*>(strings.data()) + validated.info.source_offset,
                     validated.info.source_length};
    return scene;
}

PackedScene PackedScene::from_bytes(std::span<const std::uint8_t> bytes, ChecksumPolicy checksums) {
    auto buffer = allocate(bytes.size());
    if (!bytes.empty()) std::memcpy(buffer.get(), bytes.data(), bytes.size());
    return adopt(std::move(buffer), bytes.size(), checksums, "(in memory)");
}

PackedScene PackedScene::load(const std::filesystem::path& path) {
    require_file(path, "packed scene");
    const OpenFile file = open_for_reading(path);
    auto buffer = allocate(file.size);
    const std::size_t got = read_chunked(file.fd.get(), {buffer.get(), file.size}, path);
    return adopt(std::move(buffer), got, ChecksumPolicy::Verify, origin_of(path));
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
            pixels.subspan(r.pixel_offset, r.pixel_size)};
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
                                  {view.pixels.begin(), view.pixels.end()}});
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
