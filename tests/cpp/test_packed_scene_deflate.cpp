// Deflated sections (packed scene format 5): round trips against the plain file, older
// versions still read, and damaged or hostile deflated sections refused with their names.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "assets/packed_scene.hpp"
#include "assets/packed_scene_deflate.hpp"
#include "assets/packed_scene_format.hpp"
#include "assets/packed_scene_writer.hpp"
#include "core/check.hpp"
#include "core/file_io.hpp"
#include "core/strings.hpp"
#include "packed_scene_test_utils.hpp"

namespace fs = std::filesystem;
namespace packed = batchsim::assets::packed;
using batchsim::Error;
using batchsim::str;
using batchsim::assets::ChecksumPolicy;
using batchsim::assets::PackedScene;
using batchsim::assets::SceneData;
using batchsim::test::find_entry;
using batchsim::test::require_corrupt;
using batchsim::test::require_structural;
using batchsim::test::set_entry;
using packed::SectionKind;

namespace {

constexpr batchsim::assets::PackOptions kDeflate{.deflate = true};

// A 16 x 16 m floor of unit quads (512 triangles) with a gradient texture and a navmesh
// blob: sections large and regular enough to deflate, as a real scene's are.
SceneData floor_scene() {
    SceneData scene;
    constexpr int kSide = 16;
    for (int z = 0; z <= kSide; ++z) {
        for (int x = 0; x <= kSide; ++x)
            scene.vertices.push_back(
                {float(x), 0, float(z), 0, 1, 0, float(x) / kSide, float(z) / kSide});
    }
    for (std::uint32_t z = 0; z < kSide; ++z) {
        for (std::uint32_t x = 0; x < kSide; ++x) {
            const std::uint32_t a = z * (kSide + 1) + x, b = a + 1, c = a + kSide + 1, d = c + 1;
            scene.indices.insert(scene.indices.end(), {a, c, b, b, c, d});
        }
    }
    const auto count = static_cast<std::uint32_t>(scene.indices.size());
    scene.chunks = {{0, 0, 0, 0, kSide, 0, kSide, count, 0, 0, 0, 0}};
    scene.materials = {{1, 1, 1, 1, 0, 0, 0, 0}};
    batchsim::assets::TextureData texture{"gradient.png", 32, 32, 6, {}};
    for (std::uint32_t level = 0, side = 32; level < 6; ++level, side /= 2) {
        for (std::uint32_t i = 0; i < side * side * 4; ++i)
            texture.pixels.push_back(static_cast<std::uint8_t>((i / 4) % side * 255 / side));
    }
    scene.textures = {texture};
    scene.navmesh = {'M', 'S', 'E', 'T'};
    for (int i = 0; i < 2000; ++i) scene.navmesh.push_back(static_cast<std::uint8_t>(i % 7));
    scene.bounds = {{0, 0, 0}, {kSide, 0, kSide}};
    scene.source = "synthetic/floor.glb";
    return scene;
}

const std::vector<std::uint8_t>& plain_file() {
    static const std::vector<std::uint8_t> file = batchsim::assets::pack_scene(floor_scene());
    return file;
}

const std::vector<std::uint8_t>& deflated_file() {
    static const std::vector<std::uint8_t> file =
        batchsim::assets::pack_scene(floor_scene(), kDeflate);
    return file;
}

packed::Header header_of(std::span<const std::uint8_t> file) {
    return packed::record<packed::Header>(file, 0);
}

void set_header(std::vector<std::uint8_t>& file, const packed::Header& header) {
    std::memcpy(file.data(), &header, sizeof(header));
}

template <typename T>
bool same(std::span<const T> a, std::span<const T> b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

// Every view of `a` holds the bytes of `b`'s.
void require_same_scene(const PackedScene& a, const PackedScene& b) {
    CHECK(same(a.vertices(), b.vertices()));
    CHECK(same(a.indices(), b.indices()));
    CHECK(same(a.chunks(), b.chunks()));
    CHECK(same(a.materials(), b.materials()));
    CHECK(same(a.navmesh(), b.navmesh()));
    CHECK(same(a.bvh_nodes(), b.bvh_nodes()));
    CHECK(same(a.bvh_triangles(), b.bvh_triangles()));
    REQUIRE(a.texture_count() == b.texture_count());
    for (std::size_t i = 0; i < a.texture_count(); ++i) {
        CHECK(a.texture(i).name == b.texture(i).name);
        CHECK(same(a.texture(i).pixels, b.texture(i).pixels));
    }
    CHECK(a.source() == b.source());
    CHECK(a.bounds().min == b.bounds().min);
    CHECK(a.bounds().max == b.bounds().max);
}

// The deflated file with section `kind`'s declared raw size set to `raw`, the header's
// loaded_size made to agree, and every checksum sealed: only the inflate can object.
std::vector<std::uint8_t> with_raw_size(SectionKind kind, std::uint64_t raw) {
    auto file = deflated_file();
    const auto entry = find_entry(file, kind).second;
    REQUIRE(entry.flags == packed::kSectionDeflated);
    const auto old = packed::record<std::uint64_t>(std::span{file}.subspan(entry.offset), 0);
    std::memcpy(file.data() + entry.offset, &raw, sizeof(raw));
    auto header = header_of(file);
    header.loaded_size = header.loaded_size - packed::align_up(old) + packed::align_up(raw);
    set_header(file, header);
    packed::seal(file);
    return file;
}

}  // namespace

TEST_CASE("a deflated scene loads to the same bytes as the plain one", "[packed_scene_deflate]") {
    const PackedScene plain = PackedScene::from_bytes(plain_file());
    const PackedScene deflated = PackedScene::from_bytes(deflated_file());
    require_same_scene(deflated, plain);
    CHECK(plain.format_version() == packed::kPlainVersion);
    CHECK(deflated.format_version() == packed::kDeflateVersion);
    CHECK(deflated.file_bytes() == deflated_file().size());
    CHECK(deflated_file().size() * 2 < plain_file().size());
    // Loaded: each section at a multiple of 64, nothing of the file kept.
    CHECK(deflated.resident_bytes() == header_of(deflated_file()).loaded_size);
    CHECK(deflated.resident_bytes() < plain.resident_bytes());
    for (const void* view : {static_cast<const void*>(deflated.vertices().data()),
                             static_cast<const void*>(deflated.bvh_triangles().data()),
                             static_cast<const void*>(deflated.texture(0).pixels.data())})
        CHECK(reinterpret_cast<std::uintptr_t>(view) % packed::kAlignment == 0);

    // The big sections are deflated, the info record (64 bytes, incompressible) is not.
    for (const SectionKind kind :
         {SectionKind::Vertices, SectionKind::Indices, SectionKind::BvhNodes,
          SectionKind::BvhTriangles, SectionKind::TexturePixels, SectionKind::NavMesh})
        CHECK(find_entry(deflated_file(), kind).second.flags == packed::kSectionDeflated);
    CHECK(find_entry(deflated_file(), SectionKind::Info).second.flags == 0);

    // Packing is deterministic, and a loaded scene packs again to the same bytes.
    CHECK(batchsim::assets::pack_scene(deflated.to_scene_data(), kDeflate) == deflated_file());
    CHECK(batchsim::assets::pack_scene(deflated.to_scene_data()) == plain_file());
}

TEST_CASE("a deflated scene round-trips through a file", "[packed_scene_deflate]") {
    const fs::path dir = fs::temp_directory_path() / "batchsim_test_packed_scene_deflate";
    fs::remove_all(dir);
    fs::create_directories(dir);
    batchsim::assets::write_packed_scene(dir / "floor.bsscene", floor_scene(), kDeflate);
    batchsim::assets::write_packed_scene(dir / "plain.bsscene", floor_scene());
    const PackedScene loaded = PackedScene::load(dir / "floor.bsscene");
    require_same_scene(loaded, PackedScene::load(dir / "plain.bsscene"));
    CHECK(batchsim::read_file(dir / "floor.bsscene") == deflated_file());
    // The memory plan's figure, from the header alone.
    CHECK(batchsim::assets::loaded_scene_bytes(dir / "floor.bsscene") == loaded.resident_bytes());
    CHECK(batchsim::assets::loaded_scene_bytes(dir / "plain.bsscene") == plain_file().size());
    CHECK(batchsim::assets::loaded_scene_bytes(dir / "absent.bsscene") == 0);
    auto damaged = deflated_file();
    damaged[40] = 1;  // a reserved header byte: the header checksum no longer holds
    const std::array parts{std::span<const std::uint8_t>{damaged}};
    batchsim::write_file_atomically(dir / "damaged.bsscene", parts);
    CHECK(batchsim::assets::loaded_scene_bytes(dir / "damaged.bsscene") == damaged.size());
}

TEST_CASE("versions 3 and 4 still load; flags and loaded_size stay theirs to refuse",
          "[packed_scene_deflate]") {
    auto version3 = plain_file();  // RGBA8 textures only: a version 3 file but for the number
    auto header = header_of(version3);
    header.version = 3;
    set_header(version3, header);
    packed::seal(version3);
    const PackedScene old = PackedScene::from_bytes(version3);
    CHECK(old.format_version() == 3);
    require_same_scene(old, PackedScene::from_bytes(deflated_file()));
    CHECK(old.resident_bytes() == version3.size());

    auto flagged = plain_file();
    auto entry = find_entry(flagged, SectionKind::Vertices);
    entry.second.flags = packed::kSectionDeflated;
    set_entry(flagged, entry.first, entry.second);
    require_structural(flagged, "section 'vertices' has flags 0x1, expected 0 (before version 5)");
    auto sized = plain_file();
    header = header_of(sized);
    header.loaded_size = 64;
    set_header(sized, header);
    require_structural(sized, "header reserved bytes are not zero");
    auto newer = deflated_file();
    newer[8] = 6;
    require_corrupt(newer,
                    "unsupported version 6 (this build reads versions 3 to 5): it was "
                    "written by a newer batchsim");
}

TEST_CASE("deflated sections with lying sizes are refused", "[packed_scene_deflate]") {
    const auto entry = find_entry(deflated_file(), SectionKind::BvhTriangles).second;
    const std::uint64_t raw =
        packed::record<std::uint64_t>(std::span{deflated_file()}.subspan(entry.offset), 0);
    const std::uint64_t stream = entry.size - packed::kDeflatePrefixBytes;
    require_structural(with_raw_size(SectionKind::BvhTriangles, 1032 * stream + 48),
                       str("section 'bvh triangles' declares ", 1032 * stream + 48,
                           " raw bytes, more than its ", stream,
                           "-byte zlib stream can hold (deflate's limit is 1032:1): refused as "
                           "a decompression bomb"));
    require_structural(with_raw_size(SectionKind::BvhTriangles, ~std::uint64_t{0} - 15),
                       "refused as a decompression bomb");
    require_structural(
        with_raw_size(SectionKind::BvhTriangles, raw + 48),
        str("section 'bvh triangles' inflates to ", raw, " bytes, but declares ", raw + 48));
    require_structural(
        with_raw_size(SectionKind::BvhTriangles, raw - 48),
        str("section 'bvh triangles' inflates to more than its declared ", raw - 48, " bytes"));
    require_structural(with_raw_size(SectionKind::BvhTriangles, raw - 4),
                       str("section 'bvh triangles' declares ", raw - 4,
                           " raw bytes, not a multiple of its element size 48"));

    auto total = deflated_file();
    auto header = header_of(total);
    header.loaded_size += 64;
    set_header(total, header);
    require_structural(total, str("header says the sections load into ", header.loaded_size,
                                  " bytes, but their raw sizes need ", header.loaded_size - 64));
}

TEST_CASE("damaged deflated streams are refused", "[packed_scene_deflate]") {
    const auto [index, entry] = find_entry(deflated_file(), SectionKind::Vertices);
    const auto edited = [&, index = index, entry = entry](auto edit) {
        auto file = deflated_file();
        auto e = entry;
        edit(file, e);
        set_entry(file, index, e);
        return file;
    };
    // Truncated: the last 4 bytes (the adler32) become zero padding.
    require_structural(edited([](auto& file, auto& e) {
                           e.size -= 4;
                           std::memset(file.data() + e.offset + e.size, 0, 4);
                       }),
                       "section 'vertices''s zlib stream ends early");
    // One more byte after the stream's end, where the padding was.
    require_structural(edited([](auto& file, auto& e) {
                           REQUIRE(packed::align_up(e.size) > e.size);
                           file[e.offset + e.size] = 0x5a;
                           e.size += 1;
                       }),
                       "section 'vertices' has 1 bytes after the end of its zlib stream");
    require_structural(edited([](auto& file, auto& e) {
                           std::memset(file.data() + e.offset + 4, 0, e.size - 4);
                           e.size = 4;
                       }),
                       "section 'vertices' is deflated but holds 4 bytes, too few for its "
                       "8-byte raw size and a zlib stream");
    // Garbage in the stream: the file's checksum sees it, and behind it zlib does.
    auto flipped = deflated_file();
    flipped[entry.offset + entry.size / 2] ^= 0x55;
    require_corrupt(flipped, "section 'vertices' checksum mismatch");
    auto header_byte = deflated_file();
    header_byte[entry.offset + packed::kDeflatePrefixBytes] = 0x79;  // not a zlib header
    require_structural(header_byte, "section 'vertices' does not inflate: incorrect header check");
    require_structural(edited([](auto&, auto& e) { e.flags = 2; }),
                       "section 'vertices' has flags 0x2, expected 0 or 0x1 (deflated)");
}

TEST_CASE("random damage to a deflated scene loads or throws, never crashes",
          "[packed_scene_deflate]") {
    const auto& good = deflated_file();
    std::mt19937 random(777);
    int verified_loads = 0;
    for (int round = 0; round < 600; ++round) {
        auto file = good;
        if (round % 4 == 3) {
            file.resize(std::uniform_int_distribution<std::size_t>(0, good.size() - 1)(random));
        } else {
            const auto at = std::uniform_int_distribution<std::size_t>(0, good.size() - 1)(random);
            file[at] ^= static_cast<std::uint8_t>(std::uniform_int_distribution(1, 255)(random));
        }
        const auto policy = round % 2 == 0 ? ChecksumPolicy::Verify : ChecksumPolicy::Skip;
        try {
            const PackedScene loaded = PackedScene::from_bytes(file, policy);
            REQUIRE(loaded.indices().size() == std::size_t{1536});  // 512 triangles
            verified_loads += policy == ChecksumPolicy::Verify ? 1 : 0;
        } catch (const Error& error) {
            REQUIRE(error.kind() == Error::Kind::CorruptData);
        }
    }
    CHECK(verified_loads == 0);  // the checksums cover every byte of a deflated file too
}

TEST_CASE("deflate_section stores its raw size and inflates back", "[packed_scene_deflate]") {
    std::vector<std::uint8_t> raw(100000);
    std::mt19937 random(5);
    for (auto& byte : raw) byte = static_cast<std::uint8_t>(random() % 4);  // compressible
    const auto stored = packed::deflate_section(raw);
    CHECK(packed::record<std::uint64_t>(stored, 0) == raw.size());
    CHECK(stored.size() < raw.size() / 2);
    const auto empty = packed::deflate_section({});
    CHECK(packed::record<std::uint64_t>(empty, 0) == 0);
    CHECK(empty.size() > packed::kDeflatePrefixBytes);
}
