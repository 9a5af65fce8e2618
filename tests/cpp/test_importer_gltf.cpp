// The glTF features scanned homes use (Gibson, Matterport3D, HM3D, ReplicaCAD), each on a
// small file written here, and Khronos' TextureTransformTest from assimp-testmodels.
#include <stb/stb_image.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>

#include "asset_test_utils.hpp"
#include "assets/importer.hpp"
#include "core/check.hpp"
#include "core/file_io.hpp"
#include "gltf_writer.hpp"

namespace {

namespace fs = std::filesystem;
using batchsim::assets::import_model;
using batchsim::assets::SceneData;
using batchsim::test::GltfWriter;
using batchsim::test::quad_primitive;
using batchsim::test::ScratchDir;
using Point = std::array<long, 3>;  // a position in 1e-4 m steps, to compare sets exactly

Point key(float x, float y, float z) {
    return {std::lround(x * 1e4f), std::lround(y * 1e4f), std::lround(z * 1e4f)};
}

// Positions of the vertices each material's chunks use, by the material's red factor.
std::map<float, std::set<Point>> positions_by_red(const SceneData& scene) {
    std::map<float, std::set<Point>> out;
    for (const auto& chunk : scene.chunks) {
        for (std::uint32_t i = chunk.first_index; i < chunk.first_index + chunk.index_count; ++i) {
            const auto& v = scene.vertices[scene.indices[i]];
            out[scene.materials[chunk.material].base_r].insert(key(v.px, v.py, v.pz));
        }
    }
    return out;
}

const batchsim::assets::Vertex& vertex_at(const SceneData& scene, float x, float y, float z) {
    for (const auto& v : scene.vertices) {
        if (key(v.px, v.py, v.pz) == key(x, y, z)) return v;
    }
    FAIL("no vertex at (" << x << ", " << y << ", " << z << ")");
    return scene.vertices.front();
}

// Reference sRGB encoding (IEC 61966-2-1), independent of textures.cpp.
std::uint32_t srgb_byte(double linear) {
    const double s =
        linear <= 0.0031308 ? linear * 12.92 : 1.055 * std::pow(linear, 1 / 2.4) - 0.055;
    return static_cast<std::uint32_t>(std::lround(s * 255));
}

std::uint32_t rgb8(double r, double g, double b) {
    return srgb_byte(r) | srgb_byte(g) << 8 | srgb_byte(b) << 16;
}

}  // namespace

TEST_CASE("glTF: primitives and materials per mesh, nested node transforms, all index sizes",
          "[importer][gltf]") {
    using batchsim::test::kUnsignedByte, batchsim::test::kUnsignedShort;
    GltfWriter w;
    w.materials = {R"({"pbrMetallicRoughness":{"baseColorFactor":[0.25,0,0,1]}})",
                   R"({"pbrMetallicRoughness":{"baseColorFactor":[0.75,1,0,1]}})"};
    w.meshes = {"{\"primitives\":[" + quad_primitive(w, 0, 0, kUnsignedShort) + "," +
                quad_primitive(w, 0.5f, 1) + "," + quad_primitive(w, 0.75f, 1, kUnsignedByte) +
                "]}"};
    // Node 0 (translate, rotate 90 degrees about +y, scale 2) holds node 1 (translate up 1),
    // which draws the mesh; node 2 draws it untransformed, node 3 moved by a matrix.
    w.nodes = {R"({"translation":[10,0,0],"rotation":[0,0.70710678,0,0.70710678],)"
               R"("scale":[2,2,2],"children":[1]})",
               R"({"translation":[0,1,0],"mesh":0})", R"({"mesh":0})",
               R"({"matrix":[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,5,1],"mesh":0})"};
    w.scene_nodes = "[0,2,3]";
    ScratchDir dir;
    const SceneData scene = import_model(dir.write("nodes.glb", w.glb()), {});
    CHECK(scene.triangle_count() == 18);  // 3 quads drawn by 3 nodes
    batchsim::test::check_scene_invariants(scene, 1024);

    const auto placed = [](float x, float y, float z) {  // node 0 * node 1 * p
        return key(10 + 2 * z, 2 * (y + 1), -2 * x);
    };
    std::map<float, std::set<Point>> expected;
    for (const auto& [red, y] : {std::pair{0.25f, 0.0f}, {0.75f, 0.5f}, {0.75f, 0.75f}}) {
        for (const auto& [x, z] : {std::pair{0, 0}, {1, 0}, {1, 1}, {0, 1}}) {
            expected[red].insert(key(float(x), y, float(z)));
            expected[red].insert(placed(float(x), y, float(z)));
            expected[red].insert(key(float(x), y, float(z) + 5));
        }
    }
    CHECK(positions_by_red(scene) == expected);
}

TEST_CASE("glTF: an embedded PNG (GLB buffer view) and an external JPEG beside a .gltf",
          "[importer][gltf]") {
    std::vector<std::uint8_t> rgba(64);  // 4 x 4 RGBA8
    for (std::size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<std::uint8_t>(i * 37 % 251);
    const std::vector<std::uint8_t> png = batchsim::test::encode_image(rgba, 4, 4);
    const std::vector<std::uint8_t> jpeg = batchsim::test::encode_image(rgba, 4, 4, true);
    ScratchDir dir;
    for (const bool embedded : {true, false}) {
        GltfWriter w;
        w.meshes = {"{\"primitives\":[" + quad_primitive(w, 0, 0) + "]}"};
        w.nodes = {R"({"mesh":0})"};
        w.materials = {R"({"pbrMetallicRoughness":{"baseColorTexture":{"index":0}}})"};
        w.textures = {R"({"source":0})"};
        w.images = {embedded ? R"({"mimeType":"image/png","bufferView":)" +
                                   std::to_string(w.view(png)) + "}"
                             : std::string(R"({"uri":"wall.jpg"})")};
        fs::path model;
        if (embedded) {
            model = dir.write("embedded.glb", w.glb());
        } else {
            dir.write("wall.jpg", std::string(jpeg.begin(), jpeg.end()));
            dir.write("wall.bin", w.bin());
            model = dir.write("external.gltf", w.json("wall.bin"));
        }
        const SceneData scene = import_model(model, {});
        REQUIRE(scene.textures.size() == 1);
        CHECK(scene.textures[0].name == (embedded ? "*0" : "wall.jpg"));
        REQUIRE(scene.materials.size() == 1);
        CHECK(scene.materials[0].base_color_texture == 0);
        const std::vector<std::uint8_t>& encoded = embedded ? png : jpeg;
        int width = 0, height = 0, channels = 0;
        stbi_uc* pixels = stbi_load_from_memory(encoded.data(), static_cast<int>(encoded.size()),
                                                &width, &height, &channels, 4);
        REQUIRE(pixels != nullptr);
        CHECK(std::equal(pixels, pixels + rgba.size(), scene.textures[0].pixels.begin()));
        stbi_image_free(pixels);
        if (embedded) CHECK(std::equal(rgba.begin(), rgba.end(), scene.textures[0].pixels.begin()));
    }
}

TEST_CASE("glTF: COLOR_0 becomes the vertex colour, apart from the base colour factor",
          "[importer][gltf]") {
    GltfWriter w;
    const std::size_t floats =
        w.accessor(std::vector<float>{1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0.5f, 0.5f, 0.5f, 1},
                   batchsim::test::kFloat, "VEC4");
    const std::size_t bytes =
        w.accessor(std::vector<std::uint8_t>{255, 0, 0, 0, 255, 0, 0, 0, 255, 51, 51, 51},
                   batchsim::test::kUnsignedByte, "VEC3", true);
    const std::size_t shorts =
        w.accessor(std::vector<std::uint16_t>{65535, 0, 0, 65535, 0, 65535, 0, 65535, 0, 0, 65535,
                                              65535, 13107, 13107, 13107, 65535},
                   batchsim::test::kUnsignedShort, "VEC4", true);
    w.meshes = {"{\"primitives\":[" +
                quad_primitive(w, 0, 0, batchsim::test::kUnsignedInt,
                               ",\"COLOR_0\":" + std::to_string(floats)) +
                "," +
                quad_primitive(w, 1, 0, batchsim::test::kUnsignedShort,
                               ",\"COLOR_0\":" + std::to_string(bytes)) +
                "," +
                quad_primitive(w, 2, 0, batchsim::test::kUnsignedInt,
                               ",\"COLOR_0\":" + std::to_string(shorts)) +
                "," + quad_primitive(w, 3, 0) + "]}"};
    w.nodes = {R"({"mesh":0})"};
    w.materials = {R"({"pbrMetallicRoughness":{"baseColorFactor":[0.5,1,1,1]}})"};
    ScratchDir dir;
    const SceneData scene = import_model(dir.write("colours.glb", w.glb()), {});
    REQUIRE(scene.materials.size() == 1);
    CHECK(scene.materials[0].base_r == 0.5f);  // the factor stays in the material
    constexpr std::uint32_t kRgb = 0xffffff;
    for (const float y : {0.0f, 1.0f, 2.0f}) {  // all three encodings decode alike
        CHECK((vertex_at(scene, 0, y, 0).color & kRgb) == rgb8(1, 0, 0));
        CHECK((vertex_at(scene, 1, y, 0).color & kRgb) == rgb8(0, 1, 0));
        CHECK((vertex_at(scene, 1, y, 1).color & kRgb) == rgb8(0, 0, 1));
    }
    CHECK((vertex_at(scene, 0, 0, 1).color & kRgb) == rgb8(0.5, 0.5, 0.5));
    CHECK((vertex_at(scene, 0, 1, 1).color & kRgb) == rgb8(0.2, 0.2, 0.2));  // 51 / 255
    CHECK((vertex_at(scene, 0, 2, 1).color & kRgb) == rgb8(0.2, 0.2, 0.2));  // 13107 / 65535
    CHECK(vertex_at(scene, 0, 0, 0).color >> 24 == 255);                     // alpha kept
    CHECK(vertex_at(scene, 0, 3, 0).color == batchsim::gpu::kWhiteVertex);   // no COLOR_0
}

TEST_CASE("glTF: KHR_materials_unlit imports with its base colour", "[importer][gltf]") {
    GltfWriter w;
    w.meshes = {"{\"primitives\":[" + quad_primitive(w, 0, 0) + "]}"};
    w.nodes = {R"({"mesh":0})"};
    w.materials = {R"({"pbrMetallicRoughness":{"baseColorFactor":[0.2,0.4,0.6,1]},)"
                   R"("extensions":{"KHR_materials_unlit":{}}})"};
    w.extensions_used = w.extensions_required = {R"("KHR_materials_unlit")"};
    ScratchDir dir;
    const SceneData scene = import_model(dir.write("unlit.glb", w.glb()), {});
    REQUIRE(scene.materials.size() == 1);
    const auto& m = scene.materials[0];
    CHECK(std::array<float, 4>{m.base_r, m.base_g, m.base_b, m.base_a} ==
          std::array<float, 4>{0.2f, 0.4f, 0.6f, 1.0f});
    CHECK(m.base_color_texture == batchsim::gpu::kNoTexture);
    CHECK(scene.triangle_count() == 2);
}

// ---- KHR_texture_transform ----

namespace {

// glTF UVs of KHR_texture_transform `t` applied to (u, v): T(offset) R(rotation) S(scale),
// rotating counter-clockwise in v-down UVs as Khronos' sample viewer does (its green marker).
std::array<double, 2> transformed(const batchsim::test::Json* t, double u, double v) {
    const auto pair = [t](const char* key, double fallback) {
        return t && t->has(key) ? std::array<double, 2>{(*t)[key][0].number, (*t)[key][1].number}
                                : std::array<double, 2>{fallback, fallback};
    };
    const auto [ox, oy] = pair("offset", 0);
    const auto [sx, sy] = pair("scale", 1);
    const double r = t && t->has("rotation") ? (*t)["rotation"].number : 0;
    const double c = std::cos(r), s = std::sin(r);
    return {sx * c * u + sy * s * v + ox, -sx * s * u + sy * c * v + oy};
}

}  // namespace

TEST_CASE("glTF: KHR_texture_transform is baked into the UVs (TextureTransformTest)",
          "[importer][gltf]") {
    const fs::path model =
        batchsim::test::assimp_models() / "glTF2/textureTransform/TextureTransformTest.gltf";
    if (!fs::exists(model)) {
        WARN("skipped: " << model << " is absent (Debian package assimp-testmodels)");
        return;
    }
    const batchsim::test::GltfFile file = batchsim::test::GltfFile::load(model);
    const SceneData scene = import_model(model, {});
    std::size_t checked = 0;
    for (const auto& root : file.doc["scenes"][0]["nodes"].array) {  // the six test quads
        const auto& node = file.doc["nodes"][root.as_index()];
        const auto& primitive = file.doc["meshes"][node["mesh"].as_index()]["primitives"][0];
        const auto& info = file.doc["materials"][primitive["material"].as_index()]
                                   ["pbrMetallicRoughness"]["baseColorTexture"];
        const auto* t =
            info.has("extensions") ? &info["extensions"]["KHR_texture_transform"] : nullptr;
        const auto& offset = node["translation"];
        const auto positions = file.floats(primitive["attributes"]["POSITION"].as_index());
        const auto uvs = file.floats(primitive["attributes"]["TEXCOORD_0"].as_index());
        for (std::size_t i = 0; i < positions.size(); ++i) {
            const auto& v =
                vertex_at(scene, float(positions[i][0] + offset[0].number),
                          float(positions[i][1] + offset[1].number), float(positions[i][2]));
            const auto [u, w] = transformed(t, uvs[i][0], uvs[i][1]);
            CHECK(v.u == Approx(u).margin(1e-5));
            CHECK(v.v == Approx(w).margin(1e-5));
            ++checked;
        }
    }
    CHECK(checked == 24);  // 6 quads of 4 corners
}

TEST_CASE("glTF: the base colour's texCoord picks the UV set, with or without a transform",
          "[importer][gltf]") {
    const auto model = [](const std::string& texture_info) {
        GltfWriter w;
        const std::size_t second =
            w.accessor(std::vector<float>{0.25f, 0.25f, 0.75f, 0.25f, 0.75f, 0.75f, 0.25f, 0.75f},
                       batchsim::test::kFloat, "VEC2");
        w.meshes = {"{\"primitives\":[" +
                    quad_primitive(w, 0, 0, batchsim::test::kUnsignedInt,
                                   ",\"TEXCOORD_1\":" + std::to_string(second)) +
                    "]}"};
        w.nodes = {R"({"mesh":0})"};
        w.materials = {R"({"pbrMetallicRoughness":{"baseColorTexture":)" + texture_info + "}}"};
        w.textures = {R"({"source":0})"};
        w.images = {R"({"mimeType":"image/png","bufferView":)" +
                    std::to_string(w.view(batchsim::test::encode_image({9, 9, 9, 255}, 1, 1))) +
                    "}"};
        w.extensions_used = {R"("KHR_texture_transform")"};
        return w.glb();
    };
    ScratchDir dir;
    const SceneData plain =
        import_model(dir.write("set1.glb", model(R"({"index":0,"texCoord":1})")), {});
    CHECK(vertex_at(plain, 1, 0, 0).u == 0.75f);
    CHECK(vertex_at(plain, 1, 0, 0).v == 0.25f);
    const SceneData moved = import_model(
        dir.write("moved.glb",
                  model(R"({"index":0,"texCoord":1,"extensions":)"
                        R"({"KHR_texture_transform":{"offset":[0.5,-1],"texCoord":1}}})")),
        {});
    CHECK(vertex_at(moved, 1, 0, 0).u == Approx(1.25f));
    CHECK(vertex_at(moved, 1, 0, 0).v == Approx(-0.75f));
    // The extension naming another set than the texture's: Assimp would read the wrong one.
    const fs::path other = dir.write(
        "other.glb", model(R"({"index":0,"extensions":{"KHR_texture_transform":{"texCoord":1}}})"));
    try {
        (void)import_model(other, {});
        FAIL("imported a texCoord override");
    } catch (const batchsim::Error& error) {
        CHECK(error.kind() == batchsim::Error::Kind::Unsupported);
        CHECK_THAT(error.what(), Catch::Contains("KHR_texture_transform texCoord 1") &&
                                     Catch::Contains("other.glb") && Catch::Contains("material 0"));
    }
}
