// The JSON of a glTF file (a .gltf's text or a .glb's JSON chunk) as a small tree: what the
// importer needs to read that Assimp does not hand over (which textures have only KTX2
// images, KHR_texture_transform's texCoord). Assimp still reads the geometry.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace batchsim::assets::gltf {

struct JsonValue {
    enum class Type { Null, Bool, Number, String, Array, Object };
    Type type = Type::Null;
    double number = 0;              // Number, and Bool as 0 or 1
    std::string text;               // String
    std::vector<JsonValue> items;   // Array elements, or Object member values
    std::vector<std::string> keys;  // Object member names: keys[i] names items[i]

    // Member `key` of an object (the first, if repeated); nullptr if absent or not an object.
    [[nodiscard]] const JsonValue* find(std::string_view key) const;
    // Element i of an array; nullptr if out of range or not an array.
    [[nodiscard]] const JsonValue* at(std::size_t i) const;
    // A non-negative integer (an index); nullopt for anything else.
    [[nodiscard]] std::optional<std::size_t> as_index() const;
};

// Deepest nesting accepted: glTF needs about 8 levels; the limit keeps the recursive parser's
// stack small on hostile input.
inline constexpr std::size_t kMaxJsonDepth = 64;

// Parses `text`. Throws Error(CorruptData) naming `origin` and the byte offset of the fault on
// malformed JSON or nesting deeper than kMaxJsonDepth.
JsonValue parse_json(std::string_view text, std::string_view origin);

// True if `path` names glTF 2.0 by its extension (.gltf or .glb, any case).
bool is_gltf_path(const std::filesystem::path& path);

// The JSON text of the glTF file at `path`: a .glb's first chunk (only the header and that
// chunk are read), else the whole file; nullopt for a glTF 1 binary (Assimp reads those, and
// they have none of the glTF 2 features checked here). Throws Error(CorruptData) if a .glb's
// header or chunk is malformed or truncated, Error(Io) if reading fails.
std::optional<std::string> read_gltf_json(const std::filesystem::path& path);

}  // namespace batchsim::assets::gltf
