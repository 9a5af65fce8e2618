// A tiny glTF 2.0 writer for importer tests: binary data goes into one buffer (a .glb's BIN
// chunk or a .bin beside a .gltf); JSON objects are written by the test as strings.
#pragma once

#include <stb/stb_image_write.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace batchsim::test {

// glTF accessor component types.
inline constexpr int kUnsignedByte = 5121, kUnsignedShort = 5123, kUnsignedInt = 5125,
                     kFloat = 5126;

// "a,b,c" from JSON values.
inline std::string json_list(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
    return out;
}

class GltfWriter {
public:
    std::vector<std::string> materials, meshes, nodes, textures, images, samplers;
    std::vector<std::string> extensions_used, extensions_required;
    std::string scene_nodes = "[0]";  // the default scene's root nodes

    // A buffer view of `bytes` (4-byte aligned, as accessors need); returns its index.
    std::size_t view(std::span<const std::uint8_t> bytes) {
        bin_.resize((bin_.size() + 3) / 4 * 4, '\0');
        views_.push_back(R"({"buffer":0,"byteOffset":)" + std::to_string(bin_.size()) +
                         R"(,"byteLength":)" + std::to_string(bytes.size()) + "}");
        bin_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        return views_.size() - 1;
    }

    // An accessor over `values` of glTF `type` ("SCALAR", "VEC2", ...) with components of
    // `component_type`; POSITION accessors pass their float min/max in `bounds`.
    template <typename T>
    std::size_t accessor(const std::vector<T>& values, int component_type, const char* type,
                         bool normalized = false, const std::string& bounds = "") {
        const std::size_t components = std::string(type) == "SCALAR" ? 1 : type[3] - '0';
        const std::size_t v =
            view({reinterpret_cast<const std::uint8_t*>(values.data()), values.size() * sizeof(T)});
        accessors_.push_back(R"({"bufferView":)" + std::to_string(v) + R"(,"componentType":)" +
                             std::to_string(component_type) + R"(,"count":)" +
                             std::to_string(values.size() / components) + R"(,"type":")" + type +
                             "\"" + (normalized ? R"(,"normalized":true)" : "") + bounds + "}");
        return accessors_.size() - 1;
    }

    // A VEC3 float POSITION accessor with the min/max the spec requires.
    std::size_t positions(const std::vector<float>& xyz) {
        std::array<float, 3> lo{xyz[0], xyz[1], xyz[2]}, hi = lo;
        for (std::size_t i = 0; i < xyz.size(); ++i) {
            lo[i % 3] = std::min(lo[i % 3], xyz[i]);
            hi[i % 3] = std::max(hi[i % 3], xyz[i]);
        }
        const auto list = [](const std::array<float, 3>& v) {
            return "[" +
                   json_list({std::to_string(v[0]), std::to_string(v[1]), std::to_string(v[2])}) +
                   "]";
        };
        return accessor(xyz, kFloat, "VEC3", false,
                        R"(,"min":)" + list(lo) + R"(,"max":)" + list(hi));
    }

    static std::size_t add(std::vector<std::string>& list, std::string json) {
        list.push_back(std::move(json));
        return list.size() - 1;
    }

    // The JSON document; `bin_uri` names the buffer's file for a .gltf (empty for a .glb).
    [[nodiscard]] std::string json(const std::string& bin_uri = "") const {
        std::string buffer = R"({"byteLength":)" + std::to_string(bin_.size());
        buffer += bin_uri.empty() ? "}" : R"(,"uri":")" + bin_uri + "\"}";
        std::string out =
            R"({"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":)" + scene_nodes + "}]";
        const std::array<std::pair<const char*, const std::vector<std::string>*>, 11> parts{
            {{"nodes", &nodes},
             {"meshes", &meshes},
             {"materials", &materials},
             {"textures", &textures},
             {"images", &images},
             {"samplers", &samplers},
             {"accessors", &accessors_},
             {"bufferViews", &views_},
             {"extensionsUsed", &extensions_used},
             {"extensionsRequired", &extensions_required},
             {"buffers", nullptr}}};
        for (const auto& [name, items] : parts) {
            if (items == nullptr)
                out += R"(,"buffers":[)" + buffer + "]";
            else if (!items->empty())
                out += ",\"" + std::string(name) + "\":[" + json_list(*items) + "]";
        }
        return out + "}";
    }

    // The .glb bytes: header, JSON chunk (space-padded), BIN chunk (zero-padded).
    [[nodiscard]] std::string glb() const {
        std::string text = json(), bin = bin_;
        text.resize((text.size() + 3) / 4 * 4, ' ');
        bin.resize((bin.size() + 3) / 4 * 4, '\0');
        std::string out;
        const auto u32 = [&out](std::uint32_t v) {
            out.append(reinterpret_cast<const char*>(&v), 4);
        };
        u32(0x46546C67);  // "glTF"
        u32(2);
        u32(static_cast<std::uint32_t>(12 + 8 + text.size() + 8 + bin.size()));
        u32(static_cast<std::uint32_t>(text.size()));
        u32(0x4E4F534A);  // "JSON"
        out += text;
        u32(static_cast<std::uint32_t>(bin.size()));
        u32(0x004E4942);  // "BIN\0"
        return out + bin;
    }

    [[nodiscard]] const std::string& bin() const { return bin_; }

private:
    std::string bin_;
    std::vector<std::string> views_, accessors_;
};

// PNG (or JPEG with `jpeg`) bytes of width x height RGBA8 `rgba`, top row first.
inline std::vector<std::uint8_t> encode_image(const std::vector<std::uint8_t>& rgba, int width,
                                              int height, bool jpeg = false) {
    std::vector<std::uint8_t> out;
    const auto append = [](void* context, void* data, int size) {
        auto& bytes = *static_cast<std::vector<std::uint8_t>*>(context);
        bytes.insert(bytes.end(), static_cast<std::uint8_t*>(data),
                     static_cast<std::uint8_t*>(data) + size);
    };
    if (jpeg)
        stbi_write_jpg_to_func(append, &out, width, height, 4, rgba.data(), 100);
    else
        stbi_write_png_to_func(append, &out, width, height, 4, rgba.data(), width * 4);
    return out;
}

}  // namespace batchsim::test

namespace batchsim::test {

// A 1 m quad in the xz plane at height `y`, facing +y, with TEXCOORD_0 (0,0) to (1,1) and
// `extra_attributes` (e.g. `,"COLOR_0":3`); indices of `index_type` (kUnsignedByte, ...).
inline std::string quad_primitive(GltfWriter& w, float y, int material,
                                  int index_type = kUnsignedInt,
                                  const std::string& extra_attributes = "") {
    const std::size_t position = w.positions({0, y, 0, 1, y, 0, 1, y, 1, 0, y, 1});
    const std::size_t uv = w.accessor(std::vector<float>{0, 0, 1, 0, 1, 1, 0, 1}, kFloat, "VEC2");
    const auto indices = [&]<typename T>(T) {
        return w.accessor(std::vector<T>{0, 2, 1, 0, 3, 2}, index_type, "SCALAR");
    };
    const std::size_t index = index_type == kUnsignedByte    ? indices(std::uint8_t{})
                              : index_type == kUnsignedShort ? indices(std::uint16_t{})
                                                             : indices(std::uint32_t{});
    return R"({"attributes":{"POSITION":)" + std::to_string(position) + R"(,"TEXCOORD_0":)" +
           std::to_string(uv) + extra_attributes + R"(},"indices":)" + std::to_string(index) +
           R"(,"material":)" + std::to_string(material) + "}";
}

}  // namespace batchsim::test
