#include "assets/importer.hpp"

#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/Importer.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "assets/file_kinds.hpp"
#include "assets/gltf_checks.hpp"
#include "assets/gltf_json.hpp"
#include "assets/import_files.hpp"
#include "assets/import_materials.hpp"
#include "assets/mesh_chunks.hpp"
#include "assets/obj_checks.hpp"
#include "assets/ply_checks.hpp"
#include "assets/textures.hpp"
#include "core/check.hpp"
#include "core/file_io.hpp"
#include "core/strings.hpp"
#include "nav/habitat_format.hpp"

namespace batchsim::assets {
namespace {

namespace fs = std::filesystem;
using Vec3 = std::array<float, 3>;

// Scenes with less total triangle area than this (1 cm x 1 cm = 1e-4 m^2 would already be
// tiny) are degenerate: nothing to render or walk on.
constexpr double kMinSceneArea = 1e-8;

// Assimp steps, run after our own checks on the raw scene. FlipUVs: Assimp hands out
// OpenGL-style UVs (v up from the image's bottom row); we store glTF/Vulkan ones (v down
// from the top row, the row stb_image decodes first), so every format agrees.
// PreTransformVertices bakes node transforms (nested translation, rotation, scale).
constexpr unsigned kPostProcess = aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                                  aiProcess_GenSmoothNormals | aiProcess_SortByPType |
                                  aiProcess_PreTransformVertices | aiProcess_FindInvalidData |
                                  aiProcess_GenUVCoords | aiProcess_TransformUVCoords |
                                  aiProcess_FlipUVs | aiProcess_ValidateDataStructure;

struct Transform {
    AxisMatrix axes{};
    float scale = 1.0f;
    bool reflects = false;  // det(axes) < 0: winding must flip to keep faces outward

    [[nodiscard]] Vec3 rotate(const aiVector3D& v) const {
        Vec3 out{};
        for (std::size_t i = 0; i < 3; ++i)
            out[i] = axes[i][0] * v.x + axes[i][1] * v.y + axes[i][2] * v.z;
        return out;
    }
};

void check_options(const ImportOptions& options) {
    BATCHSIM_CHECK(std::isfinite(options.scale) && options.scale > 0, InvalidArgument,
                   str("scale must be a positive finite number, got ", options.scale));
    BATCHSIM_CHECK(options.chunk_triangles > 0, InvalidArgument,
                   "chunk_triangles must be at least 1");
}

// Whether `source`'s extension, in lower case, is one of `extensions` (".3mf", ...).
bool has_extension_of(const fs::path& source, std::initializer_list<std::string_view> extensions) {
    std::string extension = source.extension().string();
    for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return std::find(extensions.begin(), extensions.end(), extension) != extensions.end();
}

// What to do with a file of `kind` given as a model.
std::string_view advice_for(FileKind kind) {
    switch (kind) {
        case FileKind::Gzip:
        case FileKind::Zip:
        case FileKind::Bzip2:
        case FileKind::Xz:
        case FileKind::Zstd:
        case FileKind::SevenZip: return "; unpack it and import the model inside";
        case FileKind::PackedScene: return "; it is imported already: batchsim.Scene.load reads it";
        case FileKind::HabitatNavMesh:
            return "; give it with --navmesh (navmesh=) when importing its scene's model";
        default: return "";
    }
}

// A model file that is another kind of file (a PNG renamed .glb) is named for what it is:
// the parsers would report only their first surprise ("bad JSON at byte 0").
void check_model_content(const fs::path& source) {
    OpenFile file = open_for_reading(source, "model");
    std::array<std::uint8_t, 16> head{};
    const std::size_t got = read_chunked(file.fd.get(), head, source);
    const FileKind kind = sniff_file_kind(std::span(head).first(got));
    // A binary STL starts with 80 free bytes, and "BM" (a BMP's magic) is too short to judge.
    if (kind == FileKind::Unknown || kind == FileKind::Glb || kind == FileKind::Bmp) return;
    if (has_extension_of(source, {".stl"})) return;
    // Assimp reads some formats from archives (a gzipped .blend, a zipped .3mf, .zae or .pk3):
    // an archive is judged only under the name of a format that never is one.
    const bool archive = kind == FileKind::Gzip || kind == FileKind::Zip ||
                         kind == FileKind::Bzip2 || kind == FileKind::Xz ||
                         kind == FileKind::Zstd || kind == FileKind::SevenZip;
    if (archive && !has_extension_of(
                       source, {".glb", ".gltf", ".obj", ".ply", ".fbx", ".dae", ".3ds", ".off"}))
        return;
    std::string format = source.extension().string();
    for (char& c : format) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::string expected = gltf::is_gltf_path(source) ? "a GLB/glTF model"
                                 : format.empty()           ? "a model"
                                                  : str("a model (its name says ", format, ")");
    BATCHSIM_CHECK(
        false, CorruptData,
        str("'", source.string(), "' is ", describe(kind), ", not ", expected, advice_for(kind)));
}

void check_source_file(const fs::path& source, const Assimp::Importer& importer) {
    require_file(source, "model");
    std::error_code error;  // an unreadable size is left for the reader to report
    BATCHSIM_CHECK(fs::file_size(source, error) != 0, CorruptData,
                   str("model '", source.string(), "' is empty (0 bytes); expected a model file"));
    check_model_content(source);
    if (is_ply(source)) check_ply_header(source);  // Assimp's PLY loader would hang
    if (gltf::is_gltf_path(source)) {
        // Before any Assimp code: its glTF2 content test allocates a GLB's declared JSON
        // length (GBs). A file so named that Assimp's OBJ test would take fails here: it
        // is not JSON (no JSON line starts with "v ", "f ", "o " or the like).
        const std::optional<std::string> json = gltf::read_gltf_json(source);
        if (json)
            gltf::check_base_color_textures(gltf::parse_json(*json, source.string()),
                                            source.string());
    } else if (assimp_reads_as_obj(importer, source)) {
        check_obj_elements(source);  // Assimp's OBJ loader would write past its vertex arrays
    }
}

// "mesh 'Cube'", or "mesh 3" for a mesh without a name.
std::string mesh_name(const aiMesh& mesh, unsigned index) {
    return mesh.mName.length > 0 ? str("mesh '", mesh.mName.C_Str(), "'") : str("mesh ", index);
}

// Vertices are refused beyond the bound the navmesh and simulator keep (nav::
// kMaxNavCoordinate, 1e6 m): Recast and Detour overflow past it, and a vertex at 1e30 made
// its triangles vanish without a word. `scale` takes `p` to metres; `stage` says when.
void check_position(const aiVector3D& p, double scale, const fs::path& source,
                    const std::string& where, std::string_view stage) {
    const double limit = nav::kMaxNavCoordinate;
    const auto in_range = [&](float value) {
        return std::isfinite(value) && std::fabs(double{value} * scale) <= limit;
    };
    BATCHSIM_CHECK(in_range(p.x) && in_range(p.y) && in_range(p.z), CorruptData,
                   str("model '", source.string(), "': ", where, " is at (", p.x, ", ", p.y, ", ",
                       p.z, ")", stage, "; expected finite coordinates within ±", limit,
                       " m (the navmesh's and simulator's bound)"));
}

std::string_view scaled_note(float scale) {
    return scale == 1.0f ? "" : " before the import's scale";
}

// Rejects what must not reach Assimp's post-processing or our geometry code.
void check_raw_scene(const aiScene& scene, const fs::path& source, float scale) {
    std::size_t polygons = 0;
    for (unsigned m = 0; m < scene.mNumMeshes; ++m) {
        const aiMesh& mesh = *scene.mMeshes[m];
        for (unsigned v = 0; v < mesh.mNumVertices; ++v)
            check_position(mesh.mVertices[v], scale, source, str(mesh_name(mesh, m), " vertex ", v),
                           scaled_note(scale));
        for (unsigned f = 0; f < mesh.mNumFaces; ++f) polygons += mesh.mFaces[f].mNumIndices >= 3;
    }
    BATCHSIM_CHECK(polygons > 0, CorruptData,
                   str("model '", source.string(), "' contains no triangles"));
}

// glTF files skip TransformUVCoords: import_materials bakes KHR_texture_transform itself.
const aiScene& read_scene(Assimp::Importer& importer, const RegularFileSystem& files,
                          const fs::path& source, bool gltf, float scale) {
    importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE,
                                aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    const aiScene* scene = importer.ReadFile(source.string(), aiProcess_ValidateDataStructure);
    check_no_refusal(files, source.string());  // before Assimp's vaguer "cannot open"
    BATCHSIM_CHECK(scene != nullptr && (scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) == 0,
                   CorruptData,
                   str("cannot import model '", source.string(),
                       "': ", scene ? "scene is incomplete" : importer.GetErrorString()));
    check_raw_scene(*scene, source, scale);
    scene = importer.ApplyPostProcessing(gltf ? kPostProcess & ~aiProcess_TransformUVCoords
                                              : kPostProcess);
    BATCHSIM_CHECK(scene != nullptr, CorruptData,
                   str("cannot import model '", source.string(), "': ", importer.GetErrorString()));
    return *scene;
}

// glTF COLOR_0 (linear RGBA) as the vertex's RGBA8 with sRGB-encoded RGB.
std::uint32_t pack_color(const aiColor4D& c) {
    const float alpha = c.a > 0 ? std::min(c.a, 1.0f) : 0.0f;  // NaN -> 0
    return std::uint32_t{linear_to_srgb_byte(c.r)} | std::uint32_t{linear_to_srgb_byte(c.g)} << 8 |
           std::uint32_t{linear_to_srgb_byte(c.b)} << 16 |
           static_cast<std::uint32_t>(std::lround(alpha * 255.0f)) << 24;
}

Vertex make_vertex(const aiMesh& mesh, unsigned i, const Transform& t, const UvMapping& uv) {
    const Vec3 p = t.rotate(mesh.mVertices[i]);
    Vec3 n = mesh.mNormals ? t.rotate(mesh.mNormals[i]) : Vec3{0, 1, 0};
    const float length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    // Assimp leaves zero normals on isolated degenerate faces; any unit vector beats NaN.
    n = std::isfinite(length) && length > 1e-12f ? Vec3{n[0] / length, n[1] / length, n[2] / length}
                                                 : Vec3{0, 1, 0};
    // A material naming a set the mesh lacks reads set 0, as Assimp's own steps do.
    const aiVector3D* uvs =
        mesh.mTextureCoords[uv.channel] ? mesh.mTextureCoords[uv.channel] : mesh.mTextureCoords[0];
    const auto [u, v] = uvs ? uv.apply(uvs[i].x, uvs[i].y) : std::array<float, 2>{0, 0};
    const std::uint32_t color =
        mesh.mColors[0] ? pack_color(mesh.mColors[0][i]) : gpu::kWhiteVertex;
    return {p[0] * t.scale, p[1] * t.scale, p[2] * t.scale, n[0], n[1], n[2], u, v, color};
}

double triangle_area(const Vertex& a, const Vertex& b, const Vertex& c) {
    const double e1[3] = {b.px - a.px, b.py - a.py, b.pz - a.pz};
    const double e2[3] = {c.px - a.px, c.py - a.py, c.pz - a.pz};
    const double x = e1[1] * e2[2] - e1[2] * e2[1], y = e1[2] * e2[0] - e1[0] * e2[2],
                 z = e1[0] * e2[1] - e1[1] * e2[0];
    return 0.5 * std::sqrt(x * x + y * y + z * z);
}

// Appends one Assimp mesh's triangles to its material's mesh; returns their total area.
// Zero-area triangles are dropped: they draw nothing and only confuse navmesh baking.
double append_triangles(const aiMesh& mesh, const Transform& t, const UvMapping& uv,
                        MaterialMesh& out) {
    const auto base = static_cast<std::uint32_t>(out.vertices.size());
    out.vertices.reserve(out.vertices.size() + mesh.mNumVertices);
    for (unsigned i = 0; i < mesh.mNumVertices; ++i)
        out.vertices.push_back(make_vertex(mesh, i, t, uv));
    out.indices.reserve(out.indices.size() + std::size_t{mesh.mNumFaces} * 3);
    double area = 0;
    for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
        const aiFace& face = mesh.mFaces[f];
        if (face.mNumIndices != 3) continue;
        std::array<std::uint32_t, 3> tri{base + face.mIndices[0], base + face.mIndices[1],
                                         base + face.mIndices[2]};
        if (t.reflects) std::swap(tri[1], tri[2]);
        const double a =
            triangle_area(out.vertices[tri[0]], out.vertices[tri[1]], out.vertices[tri[2]]);
        if (!(a > 0)) continue;
        area += a;
        out.indices.insert(out.indices.end(), tri.begin(), tri.end());
    }
    return area;
}

// Triangles grouped by Assimp material index (a map: ascending material order).
std::map<unsigned, MaterialMesh> collect_triangles(const aiScene& scene, const Transform& t,
                                                   const std::vector<UvMapping>& uv,
                                                   const fs::path& source) {
    std::map<unsigned, MaterialMesh> meshes;
    double area = 0;
    std::size_t triangles = 0;
    for (unsigned m = 0; m < scene.mNumMeshes; ++m) {
        const aiMesh& mesh = *scene.mMeshes[m];
        if ((mesh.mPrimitiveTypes & aiPrimitiveType_TRIANGLE) == 0) continue;
        for (unsigned v = 0; v < mesh.mNumVertices; ++v)  // node transforms baked in now
            check_position(mesh.mVertices[v], t.scale, source,
                           str(mesh_name(mesh, m), " vertex ", v, " (in the scene, its nodes' ",
                               "transforms applied)"),
                           scaled_note(t.scale));
        area += append_triangles(mesh, t, uv[mesh.mMaterialIndex], meshes[mesh.mMaterialIndex]);
        triangles += mesh.mNumFaces;
    }
    BATCHSIM_CHECK(triangles > 0, CorruptData,
                   str("model '", source.string(), "' contains no triangles"));
    BATCHSIM_CHECK(area >= kMinSceneArea, CorruptData,
                   str("model '", source.string(), "' has zero surface area: its ", triangles,
                       " triangles cover ", area, " m^2 (< ", kMinSceneArea, " m^2)"));
    std::erase_if(meshes, [](const auto& entry) { return entry.second.indices.empty(); });
    return meshes;
}

std::vector<UvMapping> uv_mappings(const aiScene& scene, bool gltf) {
    std::vector<UvMapping> out;
    out.reserve(scene.mNumMaterials);
    for (unsigned m = 0; m < scene.mNumMaterials; ++m)
        out.push_back(base_color_uv_mapping(*scene.mMaterials[m], gltf));
    return out;
}

}  // namespace

SceneData import_model(const fs::path& source, const ImportOptions& options) {
    check_options(options);
    const AxisMatrix axes = parse_axes(options.axes);
    Assimp::Importer importer;
    const RegularFileSystem& files = read_regular_files_only(importer);
    check_source_file(source, importer);
    check_no_refusal(files, source.string());
    const bool gltf = gltf::is_gltf_path(source);
    const Transform transform{axes, options.scale, determinant(axes) < 0};
    const aiScene& scene = read_scene(importer, files, source, gltf, options.scale);
    std::map<unsigned, MaterialMesh> by_material =
        collect_triangles(scene, transform, uv_mappings(scene, gltf), source);

    SceneData out;
    out.source = source.string();
    TextureLoader textures(scene, source, gltf, out.textures);
    std::vector<MaterialMesh> meshes;
    for (auto& [assimp_index, mesh] : by_material) {  // unused materials never get an index
        mesh.material = static_cast<std::uint32_t>(out.materials.size());
        out.materials.push_back(import_material(*scene.mMaterials[assimp_index], textures));
        meshes.push_back(std::move(mesh));
    }
    build_chunks(std::move(meshes), options.chunk_triangles, out);
    return out;
}

}  // namespace batchsim::assets
