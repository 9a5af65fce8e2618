#include "assets/mesh_chunks.hpp"

#include <meshoptimizer.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <span>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::assets {
namespace {

// Morton bits per axis: 10 x 3 = 30 bits orders up to a billion cells, far finer than a
// 4096-triangle chunk, and fits in 32 bits.
constexpr std::uint32_t kMortonBits = 10;

// Spreads the low 10 bits of v so two zero bits follow each one (x -> x00x00x...).
std::uint32_t spread_bits(std::uint32_t v) {
    v &= 0x3ffu;
    v = (v | (v << 16)) & 0x030000ffu;
    v = (v | (v << 8)) & 0x0300f00fu;
    v = (v | (v << 4)) & 0x030c30c3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

std::uint32_t morton_code(const std::array<float, 3>& unit) {
    constexpr auto kMax = static_cast<float>((1u << kMortonBits) - 1);
    std::uint32_t code = 0;
    for (std::size_t axis = 0; axis < 3; ++axis) {
        const auto cell = static_cast<std::uint32_t>(std::clamp(unit[axis], 0.0f, 1.0f) * kMax);
        code |= spread_bits(cell) << axis;
    }
    return code;
}

std::array<float, 3> position(const Vertex& v) {
    return {v.px, v.py, v.pz};
}

void check_indices(const MaterialMesh& mesh) {
    BATCHSIM_CHECK(mesh.indices.size() % 3 == 0, InvalidArgument,
                   str("material ", mesh.material, " has ", mesh.indices.size(),
                       " indices, not a multiple of 3"));
    for (const std::uint32_t index : mesh.indices) {
        BATCHSIM_CHECK(index < mesh.vertices.size(), InvalidArgument,
                       str("material ", mesh.material, ": index ", index, " out of range (",
                           mesh.vertices.size(), " vertices)"));
    }
}

// Merges bit-identical vertices (meshes of one material often repeat their seams).
void merge_duplicate_vertices(MaterialMesh& mesh) {
    std::vector<unsigned int> remap(mesh.vertices.size());
    const std::size_t unique =
        meshopt_generateVertexRemap(remap.data(), mesh.indices.data(), mesh.indices.size(),
                                    mesh.vertices.data(), mesh.vertices.size(), sizeof(Vertex));
    meshopt_remapIndexBuffer(mesh.indices.data(), mesh.indices.data(), mesh.indices.size(),
                             remap.data());
    meshopt_remapVertexBuffer(mesh.vertices.data(), mesh.vertices.data(), mesh.vertices.size(),
                              sizeof(Vertex), remap.data());
    mesh.vertices.resize(unique);
}

// Reorders triangles along a Morton curve of their centroids, so any run of consecutive
// triangles (a chunk) is spatially compact.
void sort_triangles_spatially(MaterialMesh& mesh) {
    const Bounds box = compute_bounds(mesh.vertices);
    const std::size_t count = mesh.indices.size() / 3;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> keys(count);  // (code, triangle)
    for (std::size_t t = 0; t < count; ++t) {
        std::array<float, 3> unit{};
        for (std::size_t axis = 0; axis < 3; ++axis) {
            float centroid = 0;
            for (std::size_t k = 0; k < 3; ++k)
                centroid += position(mesh.vertices[mesh.indices[3 * t + k]])[axis] / 3.0f;
            const float extent = box.max[axis] - box.min[axis];
            unit[axis] = extent > 0 ? (centroid - box.min[axis]) / extent : 0.0f;
        }
        keys[t] = {morton_code(unit), static_cast<std::uint32_t>(t)};
    }
    std::sort(keys.begin(), keys.end());  // ties broken by triangle index: deterministic
    std::vector<std::uint32_t> sorted(mesh.indices.size());
    for (std::size_t t = 0; t < count; ++t)
        std::copy_n(mesh.indices.begin() + 3 * std::ptrdiff_t{keys[t].second}, 3,
                    sorted.begin() + 3 * static_cast<std::ptrdiff_t>(t));
    mesh.indices = std::move(sorted);
}

MeshChunk make_chunk(const MaterialMesh& mesh, std::size_t first, std::size_t count,
                     std::size_t base_index) {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    std::array<float, 3> lo{kInf, kInf, kInf}, hi{-kInf, -kInf, -kInf};
    for (std::size_t i = first; i < first + count; ++i) {
        const auto p = position(mesh.vertices[mesh.indices[i]]);
        for (std::size_t axis = 0; axis < 3; ++axis) {
            lo[axis] = std::min(lo[axis], p[axis]);
            hi[axis] = std::max(hi[axis], p[axis]);
        }
    }
    MeshChunk chunk{};
    chunk.min_x = lo[0], chunk.min_y = lo[1], chunk.min_z = lo[2];
    chunk.max_x = hi[0], chunk.max_y = hi[1], chunk.max_z = hi[2];
    chunk.first_index = static_cast<std::uint32_t>(base_index + first);
    chunk.index_count = static_cast<std::uint32_t>(count);
    chunk.material = mesh.material;
    return chunk;
}

// Optimises one chunk's triangles for the post-transform cache. meshoptimizer's cost grows
// with the vertex count it is given, so the chunk is first renumbered to the vertices it uses
// (`local`: mesh vertex -> chunk vertex, kUnused again on return; `used`: the reverse): given
// the whole mesh's count, each of the 2,000 chunks of a 2M-triangle scan would clear arrays
// of a million entries, a quadratic import.
void optimize_chunk(std::span<std::uint32_t> range, std::vector<std::uint32_t>& local,
                    std::vector<std::uint32_t>& used) {
    constexpr std::uint32_t kUnused = std::numeric_limits<std::uint32_t>::max();
    used.clear();
    for (std::uint32_t& index : range) {
        if (local[index] == kUnused) {
            local[index] = static_cast<std::uint32_t>(used.size());
            used.push_back(index);
        }
        index = local[index];
    }
    meshopt_optimizeVertexCache(range.data(), range.data(), range.size(), used.size());
    for (std::uint32_t& index : range) index = used[index];
    for (const std::uint32_t vertex : used) local[vertex] = kUnused;
}

// Cuts the spatially sorted triangles into chunks, optimises each chunk for the post-transform
// cache, then reorders vertices by first use; triangle order (and so chunks) is unchanged.
std::vector<MeshChunk> cut_chunks(MaterialMesh& mesh, std::uint32_t chunk_triangles,
                                  std::size_t base_index) {
    const std::size_t step = std::size_t{chunk_triangles} * 3;
    std::vector<std::uint32_t> local(mesh.vertices.size(),
                                     std::numeric_limits<std::uint32_t>::max());
    std::vector<std::uint32_t> chunk_vertices;
    for (std::size_t first = 0; first < mesh.indices.size(); first += step) {
        const std::size_t count = std::min(step, mesh.indices.size() - first);
        optimize_chunk({mesh.indices.data() + first, count}, local, chunk_vertices);
    }
    const std::size_t used =
        meshopt_optimizeVertexFetch(mesh.vertices.data(), mesh.indices.data(), mesh.indices.size(),
                                    mesh.vertices.data(), mesh.vertices.size(), sizeof(Vertex));
    mesh.vertices.resize(used);  // drops vertices no triangle references
    std::vector<MeshChunk> chunks;
    for (std::size_t first = 0; first < mesh.indices.size(); first += step)
        chunks.push_back(
            make_chunk(mesh, first, std::min(step, mesh.indices.size() - first), base_index));
    return chunks;
}

void append_mesh(MaterialMesh& mesh, std::uint32_t chunk_triangles, SceneData& scene) {
    check_indices(mesh);
    if (mesh.indices.empty()) return;
    merge_duplicate_vertices(mesh);
    sort_triangles_spatially(mesh);
    const std::vector<MeshChunk> chunks = cut_chunks(mesh, chunk_triangles, scene.indices.size());
    const std::size_t base_vertex = scene.vertices.size();
    BATCHSIM_CHECK(base_vertex + mesh.vertices.size() <= std::numeric_limits<std::uint32_t>::max(),
                   InvalidArgument, "scene has more than 2^32 vertices");
    for (const std::uint32_t index : mesh.indices)
        scene.indices.push_back(static_cast<std::uint32_t>(base_vertex + index));
    scene.vertices.insert(scene.vertices.end(), mesh.vertices.begin(), mesh.vertices.end());
    scene.chunks.insert(scene.chunks.end(), chunks.begin(), chunks.end());
}

}  // namespace

Bounds compute_bounds(std::span<const Vertex> vertices) {
    if (vertices.empty()) return {};
    Bounds box{position(vertices[0]), position(vertices[0])};
    for (const Vertex& v : vertices) {
        const auto p = position(v);
        for (std::size_t axis = 0; axis < 3; ++axis) {
            box.min[axis] = std::min(box.min[axis], p[axis]);
            box.max[axis] = std::max(box.max[axis], p[axis]);
        }
    }
    return box;
}

void build_chunks(std::vector<MaterialMesh> meshes, std::uint32_t chunk_triangles,
                  SceneData& scene) {
    BATCHSIM_CHECK(chunk_triangles > 0, InvalidArgument, "chunk_triangles must be at least 1");
    std::stable_sort(
        meshes.begin(), meshes.end(),
        [](const MaterialMesh& a, const MaterialMesh& b) { return a.material < b.material; });
    for (MaterialMesh& mesh : meshes) append_mesh(mesh, chunk_triangles, scene);
    scene.bounds = compute_bounds(scene.vertices);
}

}  // namespace batchsim::assets
