// Reference triangle counts for the importer tests, read straight from model files (PLY and
// OFF headers, OBJ faces, glTF accessors, STL facets, Collada <vcount>, 3DS face chunks) with
// no Assimp involved, so the importer is checked against an independent count.
#pragma once

#include <array>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "asset_test_utils.hpp"

namespace batchsim::test {

namespace fs = std::filesystem;

// Counts skip zero-area triangles (repeated corners or collinear), which the importer drops:
// Spider has 56 of 1368 and 2CylinderEngine 11160 of 121496.

inline bool zero_area(const std::array<double, 3>& a, const std::array<double, 3>& b,
                      const std::array<double, 3>& c) {
    const double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double x = e1[1] * e2[2] - e1[2] * e2[1], y = e1[2] * e2[0] - e1[0] * e2[2],
                 z = e1[0] * e2[1] - e1[1] * e2[0];
    return x * x + y * y + z * z == 0;
}

// Triangles of a glTF mesh primitive (mode 4 only) with non-zero area.
inline std::size_t gltf_primitive_triangles(const GltfFile& file, const Json& primitive) {
    REQUIRE((!primitive.has("mode") || primitive["mode"].as_index() == 4));
    const auto positions = file.floats(primitive["attributes"]["POSITION"].as_index());
    std::vector<std::size_t> indices;
    if (primitive.has("indices")) {
        indices = file.indices(primitive["indices"].as_index());
    } else {
        for (std::size_t i = 0; i < positions.size(); ++i) indices.push_back(i);
    }
    std::size_t triangles = 0;
    for (std::size_t t = 0; t + 2 < indices.size(); t += 3) {
        triangles += !zero_area(positions.at(indices[t]), positions.at(indices[t + 1]),
                                positions.at(indices[t + 2]));
    }
    return triangles;
}

inline std::size_t gltf_node_triangles(const GltfFile& file, const Json& node) {
    const Json& doc = file.doc;
    std::size_t triangles = 0;
    if (node.has("mesh")) {
        for (const Json& primitive : doc["meshes"][node["mesh"].as_index()]["primitives"].array)
            triangles += gltf_primitive_triangles(file, primitive);
    }
    if (node.has("children"))
        for (const Json& child : node["children"].array)
            triangles += gltf_node_triangles(file, doc["nodes"][child.as_index()]);
    return triangles;
}

// Triangles of every mesh instance the default scene's node tree reaches.
inline std::size_t gltf_triangles(const GltfFile& file) {
    const Json& doc = file.doc;
    const Json& scene = doc["scenes"][doc.has("scene") ? doc["scene"].as_index() : 0];
    std::size_t triangles = 0;
    for (const Json& root : scene["nodes"].array)
        triangles += gltf_node_triangles(file, doc["nodes"][root.as_index()]);
    return triangles;
}

// OBJ: faces with non-zero area after fan triangulation (1-based or negative indices); also
// the set of materials the faces use.
inline std::size_t obj_triangles(const fs::path& path, std::set<std::string>* materials = nullptr) {
    std::istringstream in(batchsim::test::read_text(path));
    std::vector<std::array<double, 3>> v;
    std::size_t triangles = 0;
    for (std::string line; std::getline(in, line);) {
        std::istringstream words(line);
        std::string keyword, word;
        words >> keyword;
        if (keyword == "v") v.push_back({});
        if (keyword == "v") words >> v.back()[0] >> v.back()[1] >> v.back()[2];
        if (keyword == "usemtl" && materials && (words >> word)) materials->insert(word);
        if (keyword != "f") continue;
        std::vector<std::size_t> corners;
        for (long index = 0; words >> word;) {
            index = std::stol(word.substr(0, word.find('/')));
            corners.push_back(
                static_cast<std::size_t>(index < 0 ? long(v.size()) + index : index - 1));
        }
        for (std::size_t k = 2; k < corners.size(); ++k)
            triangles += !zero_area(v.at(corners[0]), v.at(corners[k - 1]), v.at(corners[k]));
    }
    return triangles;
}

// ASCII PLY or OFF: faces follow the vertices, each line starting with its corner count.
inline std::size_t polygon_list_triangles(std::istream& in, std::size_t vertices,
                                          std::size_t faces) {
    std::string line;
    for (std::size_t i = 0; i < vertices; ++i) std::getline(in, line);
    std::size_t triangles = 0;
    for (std::size_t i = 0; i < faces; ++i) {
        std::size_t corners = 0;
        in >> corners;
        std::getline(in, line);
        triangles += corners - 2;
    }
    return triangles;
}

inline std::size_t ply_triangles(const fs::path& path) {
    std::istringstream in(batchsim::test::read_text(path));
    std::size_t vertices = 0, faces = 0;
    for (std::string line; std::getline(in, line) && line.rfind("end_header", 0) != 0;) {
        std::istringstream words(line);
        std::string keyword, element;
        std::size_t count = 0;
        if ((words >> keyword >> element >> count) && keyword == "element")
            (element == "vertex" ? vertices : faces) = count;
    }
    return polygon_list_triangles(in, vertices, faces);
}

inline std::size_t off_triangles(const fs::path& path) {
    std::istringstream in(batchsim::test::read_text(path));
    std::string magic;
    std::size_t vertices = 0, faces = 0, edges = 0;
    in >> magic >> vertices >> faces >> edges;
    std::string rest;
    std::getline(in, rest);
    return polygon_list_triangles(in, vertices, faces);
}

// Collada <polylist>: the <vcount> list holds each polygon's corner count.
inline std::size_t collada_triangles(const fs::path& path) {
    const std::string text = batchsim::test::read_text(path);
    std::size_t triangles = 0;
    for (std::size_t at = text.find("<vcount>"); at != std::string::npos;
         at = text.find("<vcount>", at + 1)) {
        const std::size_t end = text.find("</vcount>", at);
        std::istringstream counts(text.substr(at + 8, end - at - 8));
        for (std::size_t n = 0; counts >> n;) triangles += n - 2;
    }
    return triangles;
}

// 3DS: walks the chunk tree main -> editor -> object -> trimesh -> face list (uint16 count).
inline std::size_t chunk_triangles_3ds(const std::vector<std::uint8_t>& b, std::size_t at,
                                       std::size_t end) {
    std::size_t triangles = 0;
    while (at + 6 <= end) {
        std::uint16_t id = 0;
        std::uint32_t length = 0;
        std::memcpy(&id, &b[at], 2);
        std::memcpy(&length, &b[at + 2], 4);
        std::size_t body = at + 6;
        if (id == 0x4000) body += std::strlen(reinterpret_cast<const char*>(&b[body])) + 1;
        if (id == 0x4D4D || id == 0x3D3D || id == 0x4000 || id == 0x4100)
            triangles += chunk_triangles_3ds(b, body, at + length);
        if (id == 0x4120) triangles += std::size_t{b[body]} | std::size_t{b[body + 1]} << 8;
        at += length;
    }
    return triangles;
}

// Binary STL: 80-byte header, uint32 count, then 50-byte facets (normal, 3 corners, attribute).
inline std::size_t stl_binary_triangles(const fs::path& path, std::size_t* all = nullptr) {
    const std::vector<std::uint8_t> bytes = batchsim::read_file(path);
    std::uint32_t count = 0;
    std::memcpy(&count, bytes.data() + 80, 4);
    if (all) *all = count;
    std::size_t triangles = 0;
    for (std::size_t f = 0; f < count; ++f) {
        float xyz[9];
        std::memcpy(xyz, bytes.data() + 84 + 50 * f + 12, sizeof xyz);
        const auto corner = [&](std::size_t k) {
            return std::array<double, 3>{xyz[3 * k], xyz[3 * k + 1], xyz[3 * k + 2]};
        };
        triangles += !zero_area(corner(0u), corner(1u), corner(2u));
    }
    return triangles;
}

}  // namespace batchsim::test
