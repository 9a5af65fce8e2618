// Packed scene files: the writer. The format is documented in packed_scene.hpp; the writer
// validates what it packs with the reader's checks (packed_scene_validate*.cpp), then
// deflates it if asked (packed_scene_deflate.cpp: lossless, so the plain file's validation
// holds for the deflated one, and a 25 MB scene is not inflated once more to check it).
#include "assets/packed_scene_writer.hpp"

#include <array>
#include <cassert>
#include <cstring>
#include <limits>

#include "assets/bvh.hpp"
#include "assets/packed_scene.hpp"
#include "assets/packed_scene_deflate.hpp"
#include "assets/packed_scene_format.hpp"
#include "assets/texture_groups.hpp"
#include "core/check.hpp"
#include "core/file_io.hpp"
#include "core/strings.hpp"

namespace batchsim::assets {
namespace packed {
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
        header.version = packed::kPlainVersion;
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
        r.format = static_cast<std::uint32_t>(texture.format);
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

// The scene's BVH; geometry it cannot be built from is the caller's InvalidArgument.
Bvh bvh_of(const SceneData& scene) {
    try {
        return build_bvh(scene.vertices, scene.indices, scene.chunks);
    } catch (const Error& error) {
        throw Error(error.kind(), str("cannot pack scene '", scene.source, "': ", error.what()));
    }
}

}  // namespace

std::vector<std::uint8_t> pack_scene(const SceneData& scene, const PackOptions& options) {
    if (group_textures(texture_sizes(scene.textures)).sizes.size() > kMaxTextureGroups) {
        SceneData limited = scene;  // a copy only for scenes that skipped build_scene's limit
        limit_texture_sizes(limited.textures);
        return pack_scene(limited, options);
    }
    const auto section_count = std::uint32_t(packed::kKindCount - (scene.navmesh.empty() ? 1 : 0));
    FileBuilder file(section_count);
    add_sections(file, scene, bvh_of(scene));
    std::vector<std::uint8_t> bytes = file.finish();
    try {  // never write a file that would not load
        packed::validate(bytes, ChecksumPolicy::Skip, str("for scene '", scene.source, "'"));
    } catch (const Error& error) {
        throw Error(Error::Kind::InvalidArgument, str("cannot pack: ", error.what()));
    }
    return options.deflate ? packed::deflate_file(bytes) : bytes;
}

void write_packed_scene(const std::filesystem::path& path, const SceneData& scene,
                        const PackOptions& options) {
    const std::vector<std::uint8_t> bytes = pack_scene(scene, options);
    const std::array parts{std::span<const std::uint8_t>{bytes}};
    write_file_atomically(path, parts);
}

}  // namespace batchsim::assets
