// Helpers shared by the asset tests: a tiny JSON reader (for glTF reference counts), scene
// invariant checks and scratch folders.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "assets/scene_data.hpp"
#include "core/check.hpp"
#include "core/file_io.hpp"

namespace batchsim::test {

// A parsed JSON value; enough of JSON for glTF files (no \u escapes decoded).
struct Json {
    enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
    double number = 0;
    std::string string;
    std::vector<Json> array;
    std::vector<std::string> keys;  // object members: keys[i] names values[i]
    std::vector<Json> values;

    [[nodiscard]] bool has(std::string_view key) const {
        return std::find(keys.begin(), keys.end(), key) != keys.end();
    }
    const Json& operator[](std::string_view key) const {
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == key) return values[i];
        throw std::runtime_error("JSON key not found: " + std::string(key));
    }
    const Json& operator[](std::size_t i) const { return array.at(i); }
    [[nodiscard]] std::size_t as_index() const { return static_cast<std::size_t>(number); }
};

class JsonParser {
public:
    explicit JsonParser(std::string_view text) : text_(text) {}

    Json value() {
        skip_space();
        const char c = peek();
        Json out;
        if (c == '{') {
            out.type = Json::Type::Object;
            list('}', [&] {
                std::string key = string_literal();
                expect(':');
                out.keys.push_back(std::move(key));
                out.values.push_back(value());
            });
        } else if (c == '[') {
            out.type = Json::Type::Array;
            list(']', [&] { out.array.push_back(value()); });
        } else if (c == '"') {
            out.type = Json::Type::String;
            out.string = string_literal();
        } else if (c == 't' || c == 'f' || c == 'n') {
            out.type = c == 'n' ? Json::Type::Null : Json::Type::Bool;
            out.number = c == 't' ? 1 : 0;
            pos_ += c == 'f' ? 5 : 4;
        } else {
            out.type = Json::Type::Number;
            std::size_t used = 0;
            out.number = std::stod(std::string(text_.substr(pos_, 64)), &used);
            pos_ += used;
        }
        return out;
    }

private:
    template <typename Item>
    void list(char close, Item item) {
        ++pos_;
        skip_space();
        if (peek() == close) {
            ++pos_;
            return;
        }
        for (;;) {
            item();
            skip_space();
            const char c = text_.at(pos_++);
            if (c == close) return;
            if (c != ',') throw std::runtime_error("bad JSON list");
        }
    }
    std::string string_literal() {
        skip_space();
        expect('"');
        std::string out;
        for (char c = text_.at(pos_++); c != '"'; c = text_.at(pos_++)) {
            if (c == '\\') c = text_.at(pos_++);
            out += c;
        }
        return out;
    }
    void expect(char c) {
        skip_space();
        if (text_.at(pos_++) != c) throw std::runtime_error("bad JSON");
    }
    void skip_space() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    [[nodiscard]] char peek() const { return text_.at(pos_); }

    std::string_view text_;
    std::size_t pos_ = 0;
};

// Debian's assimp-testmodels, or the folder named by BATCHSIM_ASSIMP_MODELS (the GPU
// machine unpacks the package elsewhere).
inline std::filesystem::path assimp_models() {
    const char* override_dir = std::getenv("BATCHSIM_ASSIMP_MODELS");
    return override_dir ? override_dir : "/usr/share/assimp/models";
}

inline Json parse_json(std::string_view text) {
    return JsonParser(text).value();
}

inline std::string read_text(const std::filesystem::path& path) {
    const std::vector<std::uint8_t> bytes = read_file(path);
    return {bytes.begin(), bytes.end()};
}

// A glTF file's JSON and its (first) binary buffer, from .gltf + .bin or from a .glb.
struct GltfFile {
    Json doc;
    std::vector<std::uint8_t> bin;

    static GltfFile load(const std::filesystem::path& path) {
        GltfFile file;
        if (path.extension() != ".glb") {
            file.doc = parse_json(read_text(path));
            file.bin = read_file(path.parent_path() / file.doc["buffers"][0]["uri"].string);
            return file;
        }
        const std::vector<std::uint8_t> bytes = read_file(path);
        std::uint32_t json_length = 0, bin_length = 0;  // 12-byte header, then chunks
        std::memcpy(&json_length, bytes.data() + 12, 4);
        file.doc = parse_json(
            std::string_view(reinterpret_cast<const char*>(bytes.data()) + 20, json_length));
        std::memcpy(&bin_length, bytes.data() + 20 + json_length, 4);
        const auto bin = bytes.begin() + 28 + json_length;
        file.bin.assign(bin, bin + bin_length);
        return file;
    }
    // The bytes of buffer view `view`.
    [[nodiscard]] std::vector<std::uint8_t> view_bytes(std::size_t view) const {
        const Json& v = doc["bufferViews"][view];
        const std::size_t offset = v.has("byteOffset") ? v["byteOffset"].as_index() : 0;
        return {bin.begin() + static_cast<std::ptrdiff_t>(offset),
                bin.begin() + static_cast<std::ptrdiff_t>(offset + v["byteLength"].as_index())};
    }
    // Address of element i of `accessor`, whose elements are `size` bytes unless strided.
    [[nodiscard]] const std::uint8_t* element(std::size_t accessor, std::size_t i,
                                              std::size_t size) const {
        const Json& a = doc["accessors"][accessor];
        const Json& v = doc["bufferViews"][a["bufferView"].as_index()];
        const std::size_t stride = v.has("byteStride") ? v["byteStride"].as_index() : size;
        const std::size_t offset = (v.has("byteOffset") ? v["byteOffset"].as_index() : 0) +
                                   (a.has("byteOffset") ? a["byteOffset"].as_index() : 0);
        REQUIRE(offset + i * stride + size <= bin.size());
        return bin.data() + offset + i * stride;
    }
    // A float VEC2/VEC3 accessor, widened to 3 doubles per element.
    [[nodiscard]] std::vector<std::array<double, 3>> floats(std::size_t accessor) const {
        const Json& a = doc["accessors"][accessor];
        REQUIRE(a["componentType"].as_index() == 5126);
        const std::size_t n = a["type"].string == "VEC3" ? 3 : 2;
        std::vector<std::array<double, 3>> out(a["count"].as_index());
        for (std::size_t i = 0; i < out.size(); ++i) {
            float xyz[3] = {0, 0, 0};
            std::memcpy(xyz, element(accessor, i, 4 * n), 4 * n);
            out[i] = {xyz[0], xyz[1], xyz[2]};
        }
        return out;
    }
    [[nodiscard]] std::vector<std::size_t> indices(std::size_t accessor) const {
        const Json& a = doc["accessors"][accessor];
        const std::size_t type = a["componentType"].as_index();
        const std::size_t size = type == 5121 ? 1 : type == 5123 ? 2 : 4;
        std::vector<std::size_t> out(a["count"].as_index());
        for (std::size_t i = 0; i < out.size(); ++i) {
            std::uint32_t value = 0;
            std::memcpy(&value, element(accessor, i, size), size);  // little-endian host
            out[i] = value;
        }
        return out;
    }
};

// A fresh empty folder under the system temp folder, removed with the object.
struct ScratchDir {
    std::filesystem::path path;
    ScratchDir() {
        std::random_device entropy;
        path = std::filesystem::temp_directory_path() /
               ("batchsim-test-" + std::to_string(entropy()) + std::to_string(entropy()));
        std::filesystem::create_directories(path);
    }
    ~ScratchDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    std::filesystem::path write(const std::string& name, const std::string& text) const {
        std::ofstream(path / name, std::ios::binary) << text;
        return path / name;
    }
};

// The message of `check` (a model file check such as check_ply_header) on a file `name`
// holding `text`, which must refuse with CorruptData; "(passed)" if it accepts the file.
template <typename Check>
std::string check_message(Check check, const std::string& name, const std::string& text) {
    const ScratchDir dir;
    try {
        check(dir.write(name, text));
    } catch (const Error& error) {
        CHECK(error.kind() == Error::Kind::CorruptData);
        return error.what();
    }
    return "(passed)";
}

// Every documented SceneData geometry invariant.
inline void check_scene_invariants(const assets::SceneData& scene, std::uint32_t chunk_limit) {
    REQUIRE(scene.indices.size() % 3 == 0);
    for (const std::uint32_t index : scene.indices) REQUIRE(index < scene.vertices.size());
    std::size_t next_index = 0;  // chunks tile the index array in order: each index once
    for (std::size_t c = 0; c < scene.chunks.size(); ++c) {
        const assets::MeshChunk& chunk = scene.chunks[c];
        REQUIRE(chunk.first_index == next_index);
        REQUIRE(chunk.index_count % 3 == 0);
        REQUIRE(chunk.index_count > 0);
        REQUIRE(chunk.index_count / 3 <= chunk_limit);
        REQUIRE(chunk.material < scene.materials.size());
        if (c > 0) REQUIRE(scene.chunks[c - 1].material <= chunk.material);
        next_index += chunk.index_count;
        for (std::uint32_t i = chunk.first_index; i < chunk.first_index + chunk.index_count; ++i) {
            const assets::Vertex& v = scene.vertices[scene.indices[i]];
            REQUIRE((v.px >= chunk.min_x && v.py >= chunk.min_y && v.pz >= chunk.min_z));
            REQUIRE((v.px <= chunk.max_x && v.py <= chunk.max_y && v.pz <= chunk.max_z));
            REQUIRE((v.px >= scene.bounds.min[0] && v.px <= scene.bounds.max[0]));
            REQUIRE((v.py >= scene.bounds.min[1] && v.py <= scene.bounds.max[1]));
            REQUIRE((v.pz >= scene.bounds.min[2] && v.pz <= scene.bounds.max[2]));
        }
    }
    REQUIRE(next_index == scene.indices.size());
    for (const assets::Material& m : scene.materials)
        REQUIRE((m.base_color_texture == gpu::kNoTexture ||
                 m.base_color_texture < scene.textures.size()));
}

}  // namespace batchsim::test
