#include "assets/importer.hpp"

#include <assimp/config.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/Importer.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iostream>
#include <map>
#include <span>
#include <unordered_map>
#include <vector>

#include "assets/mesh_chunks.hpp"
#include "assets/textures.hpp"
#include "core/check.hpp"
#include "core/file_io.hpp"
#include "core/strings.hpp"

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

float determinant(const AxisMatrix& m) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

[[noreturn]] void bad_axes(std::string_view spec) {
    throw Error(Error::Kind::InvalidArgument,
                str("axes '", spec, "' is not a signed permutation of x,y,z; expected three ",
                    "comma-separated axes such as \"x,z,-y\" (z up -> y up), or \"y\" / \"z\""));
}

// "-y" -> (axis 1, sign -1); nullopt-like {-1, 0} on anything else.
std::pair<int, float> parse_signed_axis(std::string_view token) {
    float sign = 1.0f;
    if (!token.empty() && (token.front() == '-' || token.front() == '+')) {
        sign = token.front() == '-' ? -1.0f : 1.0f;
        token.remove_prefix(1);
    }
    if (token.size() != 1) return {-1, 0.0f};
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(token[0])));
    if (c < 'x' || c > 'z') return {-1, 0.0f};
    return {c - 'x', sign};
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

void check_options(const ImportOptions& options) {
    BATCHSIM_CHECK(std::isfinite(options.scale) && options.scale > 0, InvalidArgument,
                   str("scale must be a positive finite number, got ", options.scale));
    BATCHSIM_CHECK(options.chunk_triangles > 0, InvalidArgument,
                   "chunk_triangles must be at least 1");
}

// Rejects what must not reach Assimp's post-processing or our geometry code.
void check_raw_scene(const aiScene& scene, const fs::path& source) {
    std::size_t polygons = 0;
    for (unsigned m = 0; m < scene.mNumMeshes; ++m) {
        const aiMesh& mesh = *scene.mMeshes[m];
        for (unsigned v = 0; v < mesh.mNumVertices; ++v) {
            const aiVector3D& p = mesh.mVertices[v];
            BATCHSIM_CHECK(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z),
                           CorruptData,
                           str("model '", source.string(), "': mesh ", m, " vertex ", v,
                               " has a non-finite position (", p.x, ", ", p.y, ", ", p.z, ")"));
        }
        for (unsigned f = 0; f < mesh.mNumFaces; ++f) polygons += mesh.mFaces[f].mNumIndices >= 3;
    }
    BATCHSIM_CHECK(polygons > 0, CorruptData,
                   str("model '", source.string(), "' contains no triangles"));
}

const aiScene& read_scene(Assimp::Importer& importer, const fs::path& source) {
    importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE,
                                aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    const aiScene* scene = importer.ReadFile(source.string(), aiProcess_ValidateDataStructure);
    BATCHSIM_CHECK(scene != nullptr && (scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) == 0,
                   CorruptData,
                   str("cannot import model '", source.string(),
                       "': ", scene ? "scene is incomplete" : importer.GetErrorString()));
    check_raw_scene(*scene, source);
    scene = importer.ApplyPostProcessing(kPostProcess);
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

Vertex make_vertex(const aiMesh& mesh, unsigned i, const Transform& t) {
    const Vec3 p = t.rotate(mesh.mVertices[i]);
    Vec3 n = mesh.mNormals ? t.rotate(mesh.mNormals[i]) : Vec3{0, 1, 0};
    const float length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    // Assimp leaves zero normals on isolated degenerate faces; any unit vector beats NaN.
    n = std::isfinite(length) && length > 1e-12f ? Vec3{n[0] / length, n[1] / length, n[2] / length}
                                                 : Vec3{0, 1, 0};
    const aiVector3D uv = mesh.mTextureCoords[0] ? mesh.mTextureCoords[0][i] : aiVector3D{};
    const std::uint32_t color =
        mesh.mColors[0] ? pack_color(mesh.mColors[0][i]) : gpu::kWhiteVertex;
    return {p[0] * t.scale, p[1] * t.scale, p[2] * t.scale, n[0], n[1], n[2], uv.x, uv.y, color};
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
double append_triangles(const aiMesh& mesh, const Transform& t, MaterialMesh& out) {
    const auto base = static_cast<std::uint32_t>(out.vertices.size());
    for (unsigned i = 0; i < mesh.mNumVertices; ++i)
        out.vertices.push_back(make_vertex(mesh, i, t));
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
                                                   const fs::path& source) {
    std::map<unsigned, MaterialMesh> meshes;
    double area = 0;
    std::size_t triangles = 0;
    for (unsigned m = 0; m < scene.mNumMeshes; ++m) {
        const aiMesh& mesh = *scene.mMeshes[m];
        if ((mesh.mPrimitiveTypes & aiPrimitiveType_TRIANGLE) == 0) continue;
        area += append_triangles(mesh, t, meshes[mesh.mMaterialIndex]);
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

// Textures already loaded (by name) and missing files already reported.
struct TextureCache {
    fs::path folder;  // the model's folder: external paths are relative to it
    std::unordered_map<std::string, std::uint32_t> loaded;
    std::vector<TextureData>* textures = nullptr;
};

TextureData load_embedded(const aiTexture& texture, std::string name) {
    if (texture.mHeight == 0) {  // compressed: mWidth bytes of PNG/JPEG/...
        const std::span<const std::uint8_t> bytes(
            reinterpret_cast<const std::uint8_t*>(texture.pcData), texture.mWidth);
        return decode_texture(bytes, std::move(name));
    }
    std::vector<std::uint8_t> rgba;
    rgba.reserve(std::size_t{texture.mWidth} * texture.mHeight * 4);
    for (std::size_t i = 0; i < std::size_t{texture.mWidth} * texture.mHeight; ++i) {
        const aiTexel& t = texture.pcData[i];  // stored BGRA
        rgba.insert(rgba.end(), {t.r, t.g, t.b, t.a});
    }
    return make_texture(std::move(name), texture.mWidth, texture.mHeight, std::move(rgba));
}

// `path` itself, else a case-insensitive match in its folder (models made on Windows often
// say TEXTURE.PNG for texture.png); empty if neither exists.
fs::path find_file(const fs::path& path) {
    std::error_code error;
    if (fs::is_regular_file(path, error)) return path;
    const auto lower = [](std::string s) {
        for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    const std::string wanted = lower(path.filename().string());
    for (const auto& entry : fs::directory_iterator(path.parent_path(), error)) {
        if (entry.is_regular_file(error) && lower(entry.path().filename().string()) == wanted)
            return entry.path();
    }
    return {};
}

// Loads (once) the texture `reference` names; kNoTexture if it is an external file that
// does not exist.
std::uint32_t texture_index(const aiScene& scene, const std::string& reference,
                            TextureCache& cache) {
    const auto [embedded, embedded_index] = scene.GetEmbeddedTextureAndIndex(reference.c_str());
    std::string name = embedded ? str("*", embedded_index) : reference;
    std::replace(name.begin(), name.end(), '\\', '/');  // Windows paths inside models
    if (!embedded) name = fs::path(name).lexically_normal().generic_string();
    if (const auto found = cache.loaded.find(name); found != cache.loaded.end())
        return found->second;
    std::uint32_t index = gpu::kNoTexture;
    if (embedded) {
        index = static_cast<std::uint32_t>(cache.textures->size());
        cache.textures->push_back(load_embedded(*embedded, name));
    } else if (const fs::path file = find_file(cache.folder / name); !file.empty()) {
        index = static_cast<std::uint32_t>(cache.textures->size());
        cache.textures->push_back(decode_texture(read_file(file), name));
    } else {
        std::cerr << "batchsim: warning: texture '" << name << "' not found next to the model in '"
                  << cache.folder.string() << "'; its material is drawn untextured\n";
    }
    cache.loaded.emplace(name, index);
    return index;
}

Material make_material(const aiScene& scene, const aiMaterial& source, TextureCache& cache) {
    aiColor4D color(1, 1, 1, 1);
    if (source.Get(AI_MATKEY_BASE_COLOR, color) != AI_SUCCESS &&
        source.Get(AI_MATKEY_COLOR_DIFFUSE, color) == AI_SUCCESS) {
        float opacity = 1.0f;  // classic materials keep alpha apart from the diffuse colour
        if (source.Get(AI_MATKEY_OPACITY, opacity) == AI_SUCCESS) color.a = opacity;
    }
    Material material{color.r, color.g, color.b, color.a, gpu::kNoTexture, 0, 0, 0};
    aiString path;
    if (source.GetTexture(aiTextureType_BASE_COLOR, 0, &path) == AI_SUCCESS ||
        source.GetTexture(aiTextureType_DIFFUSE, 0, &path) == AI_SUCCESS) {
        if (path.length > 0)
            material.base_color_texture = texture_index(scene, path.C_Str(), cache);
    }
    return material;
}

}  // namespace

std::string axes_for_up(char up) {
    switch (std::tolower(static_cast<unsigned char>(up))) {
        case 'y': return "x,y,z";
        case 'z': return "x,z,-y";
        default: break;
    }
    throw Error(Error::Kind::InvalidArgument,
                str("up axis '", up, "' is not supported; expected 'y' or 'z'"));
}

AxisMatrix parse_axes(std::string_view spec) {
    const std::string_view trimmed = trim(spec);
    if (trimmed.size() == 1 && (std::tolower(static_cast<unsigned char>(trimmed[0])) == 'y' ||
                                std::tolower(static_cast<unsigned char>(trimmed[0])) == 'z'))
        return parse_axes(axes_for_up(trimmed[0]));
    AxisMatrix matrix{};
    std::array<bool, 3> used{};
    std::size_t row = 0, start = 0;
    for (std::size_t end = 0; end <= trimmed.size(); ++end) {
        if (end < trimmed.size() && trimmed[end] != ',') continue;
        const auto [axis, sign] = parse_signed_axis(trim(trimmed.substr(start, end - start)));
        if (row >= 3 || axis < 0 || used[static_cast<std::size_t>(axis)]) bad_axes(spec);
        used[static_cast<std::size_t>(axis)] = true;
        matrix[row++][static_cast<std::size_t>(axis)] = sign;
        start = end + 1;
    }
    if (row != 3) bad_axes(spec);
    return matrix;
}

SceneData import_model(const fs::path& source, const ImportOptions& options) {
    check_options(options);
    require_file(source, "model");
    const AxisMatrix axes = parse_axes(options.axes);
    const Transform transform{axes, options.scale, determinant(axes) < 0};
    Assimp::Importer importer;
    const aiScene& scene = read_scene(importer, source);
    std::map<unsigned, MaterialMesh> by_material = collect_triangles(scene, transform, source);

    SceneData out;
    out.source = source.string();
    TextureCache cache{source.parent_path(), {}, &out.textures};
    std::vector<MaterialMesh> meshes;
    for (auto& [assimp_index, mesh] : by_material) {  // unused materials never get an index
        mesh.material = static_cast<std::uint32_t>(out.materials.size());
        out.materials.push_back(make_material(scene, *scene.mMaterials[assimp_index], cache));
        meshes.push_back(std::move(mesh));
    }
    build_chunks(std::move(meshes), options.chunk_triangles, out);
    return out;
}

}  // namespace batchsim::assets
