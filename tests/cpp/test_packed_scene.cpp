#include "assets/packed_scene.hpp"
#include "assets/packed_scene_writer.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "assets/bvh.hpp"
#include "assets/packed_scene_format.hpp"
#include "core/check.hpp"
#include "core/file_io.hpp"
#include "core/strings.hpp"
#include "packed_scene_test_utils.hpp"

namespace fs = std::filesystem;
using batchsim::Error;
using batchsim::assets::ChecksumPolicy;
using batchsim::assets::PackedScene;
using batchsim::assets::SceneData;
namespace packed = batchsim::assets::packed;
using batchsim::test::find_entry;
using batchsim::test::require_corrupt;
using batchsim::test::require_structural;
using batchsim::test::set_entry;
using batchsim::test::with;
using packed::SectionKind;

namespace {

// A quad of two triangles in two chunks, two materials (one textured), one 4x2 texture with
// its full mip chain (4x2, 2x1, 1x1 = 44 bytes) and a small navmesh blob.
SceneData make_scene(bool with_navmesh = true) {
    SceneData scene;
    scene.vertices = {{0, 0, 0, 0, 1, 0, 0, 0},
                      {1, 0, 0, 0, 1, 0, 1, 0},
                      {1, 0, 1, 0, 1, 0, 1, 1},
                      {0, 0.5f, 1, 0, 1, 0, 0, 1}};
    scene.indices = {0, 1, 2, 0, 2, 3};
    scene.chunks = {{0, 0, 0, 0, 1, 0, 1, 3, 0, 0, 0, 0}, {0, 0, 0, 3, 1, 0.5f, 1, 3, 1, 0, 0, 0}};
    scene.materials = {{1, 0.5f, 0.25f, 1, 0, 0, 0, 0},
                       {0.1f, 0.2f, 0.3f, 0.4f, batchsim::gpu::kNoTexture, 0, 0, 0}};
    batchsim::assets::TextureData texture{"wood.png", 4, 2, 3, {}};
    for (int i = 0; i < 44; ++i) texture.pixels.push_back(static_cast<std::uint8_t>(i * 7));
    scene.textures = {texture};
    if (with_navmesh) {
        scene.navmesh = {'M', 'S', 'E', 'T'};
        for (int i = 0; i < 96; ++i) scene.navmesh.push_back(static_cast<std::uint8_t>(i));
    }
    scene.bounds = {{0, 0, 0}, {1, 0.5f, 1}};
    scene.source = "synthetic/quad.glb";
    return scene;
}

template <typename T>
bool same_bytes(std::span<const T> a, const std::vector<T>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

fs::path fresh_dir(const char* name) {
    fs::path dir = fs::temp_directory_path() / "batchsim_test_packed_scene" / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

}  // namespace

TEST_CASE("a packed scene round-trips every field", "[packed_scene]") {
    const SceneData scene = make_scene();
    const fs::path path = fresh_dir("round_trip") / "quad.bsscene";
    batchsim::assets::write_packed_scene(path, scene);
    const PackedScene loaded = PackedScene::load(path);

    CHECK(loaded.file_bytes() == fs::file_size(path));
    CHECK(same_bytes(loaded.vertices(), scene.vertices));
    CHECK(same_bytes(loaded.indices(), scene.indices));
    CHECK(same_bytes(loaded.chunks(), scene.chunks));
    CHECK(same_bytes(loaded.materials(), scene.materials));
    CHECK(loaded.materials()[1].base_color_texture == batchsim::gpu::kNoTexture);
    REQUIRE(loaded.texture_count() == 1);
    const auto texture = loaded.texture(0);
    CHECK(texture.name == "wood.png");
    CHECK((texture.width == 4 && texture.height == 2 && texture.mip_count == 3));
    CHECK(same_bytes(texture.pixels, scene.textures[0].pixels));
    CHECK(same_bytes(loaded.navmesh(), scene.navmesh));
    CHECK(loaded.bounds().min == scene.bounds.min);
    CHECK(loaded.bounds().max == scene.bounds.max);
    CHECK(loaded.source() == "synthetic/quad.glb");

    // The BVH is built at packing: one leaf root for two triangles, as build_bvh makes it.
    const auto bvh = batchsim::assets::build_bvh(scene.vertices, scene.indices, scene.chunks);
    CHECK(same_bytes(loaded.bvh_nodes(), bvh.nodes));
    CHECK(same_bytes(loaded.bvh_triangles(), bvh.triangles));
    CHECK(loaded.bvh_nodes().size() == 1);

    // The copy drops the BVH; packing it again rebuilds the same bytes.
    const SceneData copy = loaded.to_scene_data();
    CHECK(batchsim::assets::pack_scene(copy) == batchsim::assets::pack_scene(scene));
    const PackedScene again = PackedScene::from_bytes(batchsim::assets::pack_scene(copy));
    CHECK(same_bytes(again.bvh_nodes(), bvh.nodes));
    CHECK(same_bytes(again.bvh_triangles(), bvh.triangles));
    CHECK(copy.textures[0].name == "wood.png");
    CHECK(copy.navmesh == scene.navmesh);
    CHECK_THROWS_AS(loaded.texture(1), Error);
}

TEST_CASE("packed scene spans are 64-byte aligned and zero-copy", "[packed_scene]") {
    const auto bytes = batchsim::assets::pack_scene(make_scene());
    PackedScene loaded = PackedScene::from_bytes(bytes);
    const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64; };
    CHECK(aligned(loaded.vertices().data()) == 0);
    CHECK(aligned(loaded.indices().data()) == 0);
    CHECK(aligned(loaded.chunks().data()) == 0);
    CHECK(aligned(loaded.materials().data()) == 0);
    CHECK(aligned(loaded.texture(0).pixels.data()) == 0);
    CHECK(aligned(loaded.navmesh().data()) == 0);
    CHECK(aligned(loaded.bvh_nodes().data()) == 0);
    CHECK(aligned(loaded.bvh_triangles().data()) == 0);
    // Views point into one buffer and survive a move of the owner.
    const auto* vertices = loaded.vertices().data();
    const PackedScene moved = std::move(loaded);
    CHECK(moved.vertices().data() == vertices);
    CHECK(moved.indices().data() > reinterpret_cast<const std::uint32_t*>(vertices));
}

TEST_CASE("a scene without navmesh or textures packs and loads", "[packed_scene]") {
    SceneData scene = make_scene(false);
    scene.textures.clear();
    scene.materials[0].base_color_texture = batchsim::gpu::kNoTexture;
    const PackedScene loaded = PackedScene::from_bytes(batchsim::assets::pack_scene(scene));
    CHECK(loaded.navmesh().empty());
    CHECK(loaded.texture_count() == 0);
    CHECK(loaded.indices().size() == 6);
}

TEST_CASE("write_packed_scene is atomic", "[packed_scene]") {
    const fs::path dir = fresh_dir("atomic");
    const fs::path path = dir / "scene.bsscene";
    batchsim::assets::write_packed_scene(path, make_scene());
    const auto original = batchsim::read_file(path);

    SECTION("into a missing folder it fails with Io and creates nothing") {
        try {
            batchsim::assets::write_packed_scene(dir / "missing" / "x.bsscene", make_scene());
            FAIL("wrote into a missing folder");
        } catch (const Error& error) {
            CHECK(error.kind() == Error::Kind::Io);
        }
        CHECK_FALSE(fs::exists(dir / "missing"));
    }
    SECTION("a scene that would not load is refused and the target is untouched") {
        SceneData bad = make_scene();
        bad.indices[4] = 99;
        try {
            batchsim::assets::write_packed_scene(path, bad);
            FAIL("wrote a corrupt scene");
        } catch (const Error& error) {
            CHECK(error.kind() == Error::Kind::InvalidArgument);
            CHECK_THAT(error.what(), Catch::Contains("index 99 out of range for 4 vertices"));
        }
        CHECK(batchsim::read_file(path) == original);
    }
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}) == 1);
}

TEST_CASE("a scene with zero triangles is rejected", "[packed_scene]") {
    SceneData scene = make_scene();
    scene.indices.clear();
    scene.chunks.clear();
    try {
        (void)batchsim::assets::pack_scene(scene);
        FAIL("packed a scene without triangles");
    } catch (const Error& error) {
        CHECK(error.kind() == Error::Kind::InvalidArgument);
        CHECK_THAT(error.what(), Catch::Contains("scene has no triangles"));
    }
}

TEST_CASE("loading names the file and its problem", "[packed_scene]") {
    const fs::path dir = fresh_dir("load_errors");
    try {
        (void)PackedScene::load(dir / "absent.bsscene");
        FAIL("loaded a missing file");
    } catch (const Error& error) {
        CHECK(error.kind() == Error::Kind::FileNotFound);
    }
    auto bytes = batchsim::assets::pack_scene(make_scene());
    bytes[200] ^= 0xff;  // inside the section table
    const std::array parts{std::span<const std::uint8_t>{bytes}};
    batchsim::write_file_atomically(dir / "bad.bsscene", parts);
    try {
        (void)PackedScene::load(dir / "bad.bsscene");
        FAIL("loaded a corrupt file");
    } catch (const Error& error) {
        CHECK(error.kind() == Error::Kind::CorruptData);
        CHECK_THAT(error.what(), Catch::Contains((dir / "bad.bsscene").string()));
        CHECK_THAT(error.what(), Catch::Contains("section table checksum mismatch"));
    }
}

TEST_CASE("header corruption is caught", "[packed_scene]") {
    const auto good = batchsim::assets::pack_scene(make_scene());
    require_corrupt({}, "file is 0 bytes, smaller than the 64-byte header");
    require_corrupt(std::span{good}.first(63), "file is 63 bytes, smaller than the 64-byte");
    for (const std::size_t size : {64ul, 100ul, 400ul, good.size() / 2, good.size() - 1}) {
        require_corrupt(std::span{good}.first(size),
                        batchsim::str("file is ", size, " bytes but header says ", good.size(),
                                      " (truncated?)"));
    }
    auto longer = good;
    longer.push_back(0);
    require_corrupt(longer, "(trailing bytes?)");

    auto magic = good;
    magic[0] = 'X';
    magic[7] = 1;
    require_corrupt(magic, "bad magic: expected 'BSSCENE', got 'XSSCENE\\x01'");
    auto version = good;
    version[8] = 7;
    require_corrupt(version,
                    "unsupported version 7 (this build reads versions 3 to 5): it was written "
                    "by a newer batchsim");
    version[8] = 2;  // before the vertex colours
    require_corrupt(version,
                    "unsupported version 2 (this build reads versions 3 to 5): re-import the "
                    "scene (batchsim import) or rebuild procedural scenes (batchsim procgen)");
    auto header = good;
    header[20] ^= 1;  // file_size
    require_corrupt(header, "header checksum mismatch");
    auto reserved = good;
    reserved[40] = 1;
    require_corrupt(reserved, "header checksum mismatch");
    require_structural(reserved, "header reserved bytes are not zero");
    auto count = good;
    count[12] = 100;
    require_structural(count, "section count 100 out of range [1, 11]");
}

TEST_CASE("table and section corruption is caught by checksums", "[packed_scene]") {
    const auto good = batchsim::assets::pack_scene(make_scene());
    auto table = good;
    table[64 + 32 + 8] ^= 0x40;  // second entry's offset
    require_corrupt(table, "section table checksum mismatch");
    for (std::uint32_t kind = packed::kFirstKind; kind <= packed::kLastKind; ++kind) {
        const auto entry = find_entry(good, static_cast<SectionKind>(kind)).second;
        auto flipped = good;
        flipped[entry.offset + entry.size / 2] ^= 0x10;
        require_corrupt(flipped, batchsim::str("section '", packed::section_name(SectionKind(kind)),
                                               "' checksum mismatch"));
    }
    auto padding = good;
    const auto indices = find_entry(good, SectionKind::Indices).second;  // 24 bytes, then padding
    padding[indices.offset + indices.size + 1] = 1;
    require_structural(padding,
                       batchsim::str("padding byte at offset ", indices.offset + indices.size + 1));
}

TEST_CASE("section table structure is validated behind the checksums", "[packed_scene]") {
    const auto good = batchsim::assets::pack_scene(make_scene());
    const auto found = find_entry(good, SectionKind::Indices);
    const std::size_t index = found.first;
    const packed::SectionEntry entry = found.second;
    const auto edited = [&](auto edit) {
        auto file = good;
        auto e = entry;
        edit(e);
        set_entry(file, index, e);
        return file;
    };
    require_structural(edited([](auto& e) { e.offset += 4; }), "is not aligned to 64 bytes");
    require_structural(edited([](auto& e) { e.offset = 0xffffffffffffffc0ull; }),
                       "extends past the end of the file");
    require_structural(edited([](auto& e) { e.size = 0xfffffffffffffffcull; }),
                       "extends past the end of the file");
    require_structural(edited([](auto& e) { e.offset = 64; }),
                       "overlaps the header and section table");
    const auto vertices = find_entry(good, SectionKind::Vertices).second;
    require_structural(edited([&](auto& e) { e.offset = vertices.offset; }),
                       "sections 'vertices' and 'indices' overlap");
    require_structural(edited([](auto& e) { e.element_size = 2; }),
                       "section 'indices' has element size 2, expected 4");
    require_structural(edited([](auto& e) { e.size -= 2; }),
                       "section 'indices' size 22 is not a multiple of its element size 4");
    require_structural(edited([](auto& e) { e.kind = 42; }), "has unknown kind 42");
    require_structural(edited([](auto& e) { e.kind = 2; }), "duplicate section 'vertices'");
    require_structural(edited([](auto& e) { e.flags = 1; }), "has flags 0x1, expected 0");

    const auto no_navmesh = batchsim::assets::pack_scene(make_scene(false));
    auto missing = no_navmesh;
    auto materials = find_entry(no_navmesh, SectionKind::Materials);
    materials.second.kind = static_cast<std::uint32_t>(SectionKind::NavMesh);
    materials.second.element_size = 1;
    set_entry(missing, materials.first, materials.second);
    require_structural(missing, "missing required section 'materials'");
}

TEST_CASE("section contents are validated behind the checksums", "[packed_scene]") {
    const auto good = batchsim::assets::pack_scene(make_scene());
    using packed::InfoRecord;
    using packed::TextureRecord;
    const auto nan = std::numeric_limits<float>::quiet_NaN();
    using batchsim::assets::Material;
    using batchsim::assets::MeshChunk;
    using batchsim::assets::Vertex;
    require_structural(with<std::uint32_t>(good, SectionKind::Indices, 4, [](auto& v) { v = 99; }),
                       "index 99 out of range for 4 vertices (at position 4)");
    require_structural(
        with<MeshChunk>(good, SectionKind::Chunks, 1, [](auto& c) { c.index_count = 6; }),
        "chunk 1 indices [3, 9) exceed index count 6");
    require_structural(
        with<MeshChunk>(good, SectionKind::Chunks, 1, [](auto& c) { c.first_index = 0; }),
        "chunks overlap at index 0");
    require_structural(
        with<MeshChunk>(good, SectionKind::Chunks, 0, [](auto& c) { c.index_count = 0; }),
        "chunks leave indices [0, 3) uncovered");
    require_structural(
        with<MeshChunk>(good, SectionKind::Chunks, 1, [](auto& c) { c.material = 9; }),
        "chunk material 9 >= 2 materials");
    require_structural(with<MeshChunk>(good, SectionKind::Chunks, 0, [](auto& c) { c.min_x = 2; }),
                       "chunk 0 bounds have min 2 > max 1 on axis x");
    require_structural(
        with<Material>(good, SectionKind::Materials, 0, [](auto& m) { m.base_color_texture = 5; }),
        "material texture 5 >= 1 textures");
    require_structural(
        with<Material>(good, SectionKind::Materials, 1, [&](auto& m) { m.base_g = nan; }),
        "material 1 has a non-finite base colour");
    require_structural(with<Vertex>(good, SectionKind::Vertices, 2, [&](auto& v) { v.py = nan; }),
                       "vertex 2 has a non-finite position");
    require_structural(
        with<Vertex>(good, SectionKind::Vertices, 1, [](auto& v) { v.nz = INFINITY; }),
        "vertex 1 has a non-finite normal");
    require_structural(with<Vertex>(good, SectionKind::Vertices, 3, [&](auto& v) { v.v = nan; }),
                       "vertex 3 has a non-finite uv");
    require_structural(
        with<InfoRecord>(good, SectionKind::Info, 0, [&](auto& i) { i.bounds_max[1] = nan; }),
        "scene bounds are not finite on axis y");
    require_structural(
        with<InfoRecord>(good, SectionKind::Info, 0, [](auto& i) { i.vertex_count = 5; }),
        "info says 5 vertices but section 'vertices' holds 4");
    require_structural(with<InfoRecord>(good, SectionKind::Info, 0, [](auto& i) { i.up_axis = 2; }),
                       "unsupported up axis 2");
    require_structural(
        with<InfoRecord>(good, SectionKind::Info, 0, [](auto& i) { i.source_length = 1000; }),
        "source name [0, +1000) lies outside the strings section");
    require_structural(
        with<TextureRecord>(good, SectionKind::TextureTable, 0, [](auto& t) { t.mip_count = 2; }),
        "texture 0 (4x2, 2 mips, rgba8) has 44 pixel bytes, expected 40");
    require_structural(
        with<TextureRecord>(good, SectionKind::TextureTable, 0, [](auto& t) { t.format = 1; }),
        "texture 0 (4x2, 3 mips, bc1) has 44 pixel bytes, expected 24");
    require_structural(
        with<TextureRecord>(good, SectionKind::TextureTable, 0, [](auto& t) { t.format = 2; }),
        "texture 0 has format 2, expected 0 (RGBA8) or 1 (BC1)");
    require_structural(
        with<TextureRecord>(good, SectionKind::TextureTable, 0, [](auto& t) { t.mip_count = 4; }),
        "texture 0 has 4 mips, expected 1 to 3 for 4x2");
    require_structural(
        with<TextureRecord>(good, SectionKind::TextureTable, 0, [](auto& t) { t.width = 0; }),
        "texture 0 is 0x2, expected 1 to 32768 texels a side");
    require_structural(with<TextureRecord>(good, SectionKind::TextureTable, 0,
                                           [](auto& t) { t.pixel_offset = 64; }),
                       "texture 0 pixels [64, +44) extend past the texture pixels section");
    require_structural(with<TextureRecord>(good, SectionKind::TextureTable, 0,
                                           [](auto& t) { t.name_offset = 0xfffffff0; }),
                       "texture 0 name [4294967280, +8) lies outside the strings section");
}

TEST_CASE("random byte flips and truncations load or throw, never crash", "[packed_scene]") {
    const auto good = batchsim::assets::pack_scene(make_scene());
    std::mt19937 random(12345);
    int verified_loads = 0;
    int skipped_loads = 0;
    for (int round = 0; round < 2000; ++round) {
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
            REQUIRE(loaded.indices().size() == 6);
            (policy == ChecksumPolicy::Verify ? verified_loads : skipped_loads) += 1;
        } catch (const Error& error) {
            REQUIRE(error.kind() == Error::Kind::CorruptData);
        }
    }
    CHECK(verified_loads == 0);  // checksums and zero padding cover every byte
    CHECK(skipped_loads > 0);    // e.g. flipped colours and texels are structurally fine
}
