// glTF input the importer refuses, each with its own error kind and a message naming the
// model and what was expected: KTX2 textures, undecodable or missing images, empty files.
#include <catch2/catch.hpp>

#include <sys/resource.h>

#include <string>

#include "asset_test_utils.hpp"
#include "assets/importer.hpp"
#include "assets/textures.hpp"
#include "core/check.hpp"
#include "gltf_writer.hpp"

namespace {

namespace fs = std::filesystem;
using batchsim::Error;
using batchsim::assets::import_model;
using batchsim::test::GltfWriter;
using batchsim::test::ScratchDir;

// The error import_model(path) throws; fails the test if it throws none.
Error import_error(const fs::path& path) {
    try {
        (void)import_model(path, {});
    } catch (const Error& error) {
        return error;
    }
    FAIL("import_model(" << path << ") did not throw");
    return Error(Error::Kind::Internal, "");
}

const std::string kKtx2Bytes = std::string("\xabKTX 20\xbb\r\n\x1a\n", 12) + std::string(68, '\0');

// A GLB quad whose one material takes its base colour from texture 0, given as JSON with the
// images `images(w)` returns (they may add buffer views).
template <typename Images>
std::string textured_glb(const std::string& texture, Images images,
                         const std::vector<std::string>& extensions = {}) {
    GltfWriter w;
    w.meshes = {"{\"primitives\":[" + batchsim::test::quad_primitive(w, 0, 0) + "]}"};
    w.nodes = {R"({"mesh":0})"};
    w.materials = {R"({"name":"floor","pbrMetallicRoughness":{"baseColorTexture":{"index":0}}})"};
    w.textures = {texture};
    w.images = images(w);
    w.extensions_used = extensions;
    return w.glb();
}

std::string embedded(GltfWriter& w, const std::string& bytes, const std::string& mime) {
    const std::size_t view =
        w.view({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()});
    return R"({"mimeType":")" + mime + R"(","bufferView":)" + std::to_string(view) + "}";
}

std::string png_bytes() {
    const std::vector<std::uint8_t> png = batchsim::test::encode_image({10, 200, 30, 255}, 1, 1);
    return {png.begin(), png.end()};
}

}  // namespace

TEST_CASE("glTF: KTX2 base-colour textures are refused with a conversion command",
          "[importer][gltf]") {
    ScratchDir dir;
    const std::vector<std::string> basisu{R"("KHR_texture_basisu")"};
    const auto ktx2_only = [](GltfWriter& w) {
        return std::vector<std::string>{embedded(w, kKtx2Bytes, "image/ktx2")};
    };
    // HM3D's form: the extension names the KTX2 image and there is no fallback source.
    const Error no_fallback = import_error(dir.write(
        "hm3d.glb",
        textured_glb(R"({"extensions":{"KHR_texture_basisu":{"source":0}}})", ktx2_only, basisu)));
    CHECK(no_fallback.kind() == Error::Kind::Unsupported);
    CHECK_THAT(no_fallback.what(),
               Catch::Contains("hm3d.glb") && Catch::Contains("material 0 ('floor')") &&
                   Catch::Contains("KHR_texture_basisu") &&
                   Catch::Contains("gltf-transform ktxdecompress in.glb out.glb"));
    // A KTX2 image as the plain source (no extension): refused too, not drawn untextured.
    const Error plain =
        import_error(dir.write("plain.glb", textured_glb(R"({"source":0})", ktx2_only)));
    CHECK(plain.kind() == Error::Kind::Unsupported);
    CHECK_THAT(plain.what(), Catch::Contains("image 0 is KTX2"));
    // Google's earlier extension (.basis images): the same.
    const Error google = import_error(dir.write(
        "google.glb", textured_glb(R"({"extensions":{"GOOGLE_texture_basis":{"source":0}}})",
                                   ktx2_only, {R"("GOOGLE_texture_basis")"})));
    CHECK(google.kind() == Error::Kind::Unsupported);
    CHECK_THAT(google.what(), Catch::Contains("GOOGLE_texture_basis"));
    // With a PNG fallback as the spec recommends, the PNG is used.
    const auto with_fallback = [](GltfWriter& w) {
        return std::vector<std::string>{embedded(w, kKtx2Bytes, "image/ktx2"),
                                        embedded(w, png_bytes(), "image/png")};
    };
    const auto scene = import_model(
        dir.write("fallback.glb",
                  textured_glb(R"({"source":1,"extensions":{"KHR_texture_basisu":{"source":0}}})",
                               with_fallback, basisu)),
        {});
    REQUIRE(scene.textures.size() == 1);
    CHECK(std::vector<std::uint8_t>(scene.textures[0].pixels.begin(),
                                    scene.textures[0].pixels.begin() + 4) ==
          std::vector<std::uint8_t>{10, 200, 30, 255});
}

TEST_CASE("a KTX2 file named by any model is refused, not decoded as garbage", "[importer]") {
    ScratchDir dir;
    dir.write("floor.ktx2", kKtx2Bytes);
    dir.write("m.mtl", "newmtl floor\nKd 1 1 1\nmap_Kd floor.ktx2\n");
    const Error error = import_error(dir.write(
        "m.obj", "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nusemtl floor\nf 1/1 2/1 3/1\n"));
    CHECK(error.kind() == Error::Kind::Unsupported);
    CHECK_THAT(error.what(), Catch::Contains("m.obj") && Catch::Contains("floor.ktx2") &&
                                 Catch::Contains("KTX2") && Catch::Contains("ktx extract"));
}

TEST_CASE("glTF: undecodable, unknown-format and missing images are clear errors",
          "[importer][gltf]") {
    ScratchDir dir;
    const std::string png = png_bytes();
    const Error truncated =
        import_error(dir.write("cut.glb", textured_glb(R"({"source":0})", [&](GltfWriter& w) {
                                   return std::vector<std::string>{
                                       embedded(w, png.substr(0, png.size() - 20), "image/png")};
                               })));
    CHECK(truncated.kind() == Error::Kind::CorruptData);
    CHECK_THAT(truncated.what(), Catch::Contains("cut.glb") && Catch::Contains("texture '*0'"));

    const std::string webp = std::string("RIFF\x10\0\0\0WEBPVP8 ", 16) + std::string(16, '\x01');
    const Error unknown =
        import_error(dir.write("webp.glb", textured_glb(R"({"source":0})", [&](GltfWriter& w) {
                                   return std::vector<std::string>{embedded(w, webp, "image/webp")};
                               })));
    // A format stb_image cannot read is named, with how to convert it (as KTX2 is).
    CHECK(unknown.kind() == Error::Kind::Unsupported);
    CHECK_THAT(unknown.what(), Catch::Contains("webp.glb") &&
                                   Catch::Contains("texture '*0' is a WebP image") &&
                                   Catch::Contains("convert it to PNG or JPEG"));

    GltfWriter w;
    w.meshes = {"{\"primitives\":[" + batchsim::test::quad_primitive(w, 0, 0) + "]}"};
    w.nodes = {R"({"mesh":0})"};
    w.materials = {R"({"pbrMetallicRoughness":{"baseColorTexture":{"index":0}}})"};
    w.textures = {R"({"source":0})"};
    w.images = {R"({"uri":"textures/wall.png"})"};
    dir.write("room.bin", w.bin());
    const Error missing = import_error(dir.write("room.gltf", w.json("room.bin")));
    CHECK(missing.kind() == Error::Kind::FileNotFound);
    CHECK_THAT(missing.what(), Catch::Contains("room.gltf") &&
                                   Catch::Contains("textures/wall.png") &&
                                   Catch::Contains(dir.path.string()));
}

TEST_CASE("an empty model file is a clear error", "[importer]") {
    ScratchDir dir;
    for (const char* name : {"empty.glb", "empty.gltf", "empty.obj"}) {
        const Error error = import_error(dir.write(name, ""));
        CHECK(error.kind() == Error::Kind::CorruptData);
        CHECK_THAT(error.what(), Catch::Contains(name) && Catch::Contains("is empty (0 bytes)"));
    }
    const Error text =
        import_error(dir.write("bad.gltf", R"({"asset":{"version":"2.0"},"materials":[)"));
    CHECK(text.kind() == Error::Kind::CorruptData);
    CHECK_THAT(text.what(), Catch::Contains("bad.gltf") && Catch::Contains("bad JSON at byte"));
}

// Peak resident memory of this process so far, bytes.
std::size_t peak_rss() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::size_t>(usage.ru_maxrss) * 1024;
}

TEST_CASE("a GLB whose JSON chunk overruns the file is refused before Assimp allocates it",
          "[importer]") {
    // 156 bytes found by fuzz_importer that declare a 3.8 GB JSON chunk: Assimp 5.2.5's glTF2
    // content test alone allocates and fills it (3.7 GB resident), so no Assimp code may run
    // on a .glb before our own header check.
    ScratchDir dir;
    std::string glb = std::string("glTF\x02\0\0\0\x58\x12\0\0\x70\x05\0\xe4", 16) + "JSON";
    glb.resize(156, ' ');
    const std::size_t before = peak_rss();
    const Error error = import_error(dir.write("huge.glb", glb));
    CHECK(error.kind() == Error::Kind::CorruptData);
    CHECK_THAT(error.what(), Catch::Contains("huge.glb': JSON chunk of 3825206640 bytes overruns "
                                             "the 156-byte file"));
    constexpr std::size_t kSlack = std::size_t{256} << 20;
    CHECK(peak_rss() < before + kSlack);
}

TEST_CASE("decode_texture refuses KTX images as unsupported", "[textures]") {
    const std::vector<std::uint8_t> ktx2(kKtx2Bytes.begin(), kKtx2Bytes.end());
    try {
        (void)batchsim::assets::decode_texture(ktx2, "a.ktx2");
        FAIL("decoded KTX2");
    } catch (const Error& error) {
        CHECK(error.kind() == Error::Kind::Unsupported);
        CHECK_THAT(error.what(), Catch::Contains("a.ktx2") && Catch::Contains("PNG"));
    }
}
