#include "assets/gltf_json.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>

#include "core/check.hpp"
#include "core/file_io.hpp"
#include "core/strings.hpp"

namespace batchsim::assets::gltf {
namespace {

// GLB container (glTF 2.0 spec, "Binary glTF Layout"): a 12-byte header, then chunks of
// (u32 length, u32 type, data); the first chunk is the JSON.
constexpr std::uint32_t kGlbMagic = 0x46546C67;   // "glTF"
constexpr std::uint32_t kChunkJson = 0x4E4F534A;  // "JSON"
constexpr std::size_t kGlbHeaderBytes = 12;
constexpr std::size_t kChunkHeaderBytes = 8;

class Parser {
public:
    Parser(std::string_view text, std::string_view origin) : text_(text), origin_(origin) {}

    JsonValue document() {
        JsonValue root = value(0);
        skip_space();
        if (pos_ != text_.size()) fail("unexpected text after the JSON value");
        return root;
    }

private:
    [[noreturn]] void fail(std::string_view what) const {
        throw Error(Error::Kind::CorruptData,
                    str("glTF '", origin_, "': bad JSON at byte ", pos_, ": ", what));
    }
    void skip_space() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    char next() {
        if (pos_ >= text_.size()) fail("unexpected end of text");
        return text_[pos_++];
    }
    void expect(char c) {
        skip_space();
        if (next() != c) fail(str("expected '", c, "'"));
    }
    void keyword(std::string_view word) {
        if (text_.substr(pos_, word.size()) != word) fail("unknown literal");
        pos_ += word.size();
    }

    JsonValue value(std::size_t depth) {
        if (depth >= kMaxJsonDepth) fail(str("nested deeper than ", kMaxJsonDepth, " levels"));
        skip_space();
        JsonValue out;
        const char c = pos_ < text_.size() ? text_[pos_] : '\0';
        if (c == '{') {
            out.type = JsonValue::Type::Object;
            members(out, depth);
        } else if (c == '[') {
            out.type = JsonValue::Type::Array;
            elements(out, depth);
        } else if (c == '"') {
            out.type = JsonValue::Type::String;
            out.text = string_literal();
        } else if (c == 't' || c == 'f') {
            out.type = JsonValue::Type::Bool;
            out.number = c == 't' ? 1 : 0;
            keyword(c == 't' ? "true" : "false");
        } else if (c == 'n') {
            keyword("null");
        } else {
            out.type = JsonValue::Type::Number;
            out.number = number();
        }
        return out;
    }

    void members(JsonValue& out, std::size_t depth) {
        ++pos_;  // '{'
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == '}') {
            ++pos_;
            return;
        }
        for (;;) {
            skip_space();
            if (pos_ >= text_.size() || text_[pos_] != '"') fail("expected a member name");
            out.keys.push_back(string_literal());
            expect(':');
            out.items.push_back(value(depth + 1));
            skip_space();
            const char c = next();
            if (c == '}') return;
            if (c != ',') fail("expected ',' or '}'");
        }
    }

    void elements(JsonValue& out, std::size_t depth) {
        ++pos_;  // '['
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == ']') {
            ++pos_;
            return;
        }
        for (;;) {
            out.items.push_back(value(depth + 1));
            skip_space();
            const char c = next();
            if (c == ']') return;
            if (c != ',') fail("expected ',' or ']'");
        }
    }

    double number() {
        double out = 0;
        const char* begin = text_.data() + pos_;
        const auto [end, error] = std::from_chars(begin, text_.data() + text_.size(), out);
        if (error != std::errc() || end == begin || !std::isfinite(out)) fail("bad number");
        pos_ += static_cast<std::size_t>(end - begin);
        return out;
    }

    // Escapes other than \uXXXX are decoded; \uXXXX becomes '?' (names compared here are
    // ASCII: extension names, MIME types, file suffixes).
    std::string string_literal() {
        ++pos_;  // '"'
        std::string out;
        for (char c = next(); c != '"'; c = next()) {
            if (c != '\\') {
                out += c;
                continue;
            }
            const char e = next();
            static constexpr std::string_view kFrom = "\"\\/bfnrt", kTo = "\"\\/\b\f\n\r\t";
            if (const auto k = kFrom.find(e); k != std::string_view::npos) {
                out += kTo[k];
            } else if (e == 'u' && pos_ + 4 <= text_.size()) {
                pos_ += 4;
                out += '?';
            } else {
                fail("bad escape in a string");
            }
        }
        return out;
    }

    std::string_view text_;
    std::string_view origin_;
    std::size_t pos_ = 0;
};

std::uint32_t read_u32(const std::uint8_t* bytes) {
    std::uint32_t value = 0;
    std::memcpy(&value, bytes, sizeof(value));  // little-endian, like every host we build on
    return value;
}

// The JSON chunk of the .glb behind `file`, whose first 12 bytes `header` holds.
std::optional<std::string> read_glb_json(OpenFile& file, const std::uint8_t* header,
                                         const std::filesystem::path& path) {
    const auto fail = [&](std::string_view what) {
        throw Error(Error::Kind::CorruptData, str("GLB '", path.string(), "': ", what));
    };
    const std::uint32_t version = read_u32(header + 4);
    if (version == 1) return std::nullopt;
    if (version != 2) fail(str("version ", version, " (expected glTF 2, or 1)"));
    std::array<std::uint8_t, kChunkHeaderBytes> chunk{};
    if (read_chunked(file.fd.get(), chunk, path) != chunk.size()) fail("truncated before its JSON");
    const std::uint32_t length = read_u32(chunk.data());
    if (read_u32(chunk.data() + 4) != kChunkJson) fail("its first chunk is not JSON");
    if (length > file.size - kGlbHeaderBytes - kChunkHeaderBytes)
        fail(str("JSON chunk of ", length, " bytes overruns the ", file.size, "-byte file"));
    std::string json(length, '\0');
    const std::span bytes(reinterpret_cast<std::uint8_t*>(json.data()), json.size());
    if (read_chunked(file.fd.get(), bytes, path) != length) fail("truncated JSON chunk");
    return json;
}

}  // namespace

const JsonValue* JsonValue::find(std::string_view key) const {
    if (type != Type::Object) return nullptr;
    const auto it = std::find(keys.begin(), keys.end(), key);
    return it == keys.end() ? nullptr : &items[static_cast<std::size_t>(it - keys.begin())];
}

const JsonValue* JsonValue::at(std::size_t i) const {
    return type == Type::Array && i < items.size() ? &items[i] : nullptr;
}

std::optional<std::size_t> JsonValue::as_index() const {
    if (type != Type::Number || number < 0 || number != std::floor(number) || number > 1e15)
        return std::nullopt;
    return static_cast<std::size_t>(number);
}

JsonValue parse_json(std::string_view text, std::string_view origin) {
    return Parser(text, origin).document();
}

bool is_gltf_path(const std::filesystem::path& path) {
    std::string ext = path.extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext == ".gltf" || ext == ".glb";
}

std::optional<std::string> read_gltf_json(const std::filesystem::path& path) {
    OpenFile file = open_for_reading(path, "model");
    std::array<std::uint8_t, kGlbHeaderBytes> header{};
    const std::size_t got = read_chunked(file.fd.get(), header, path);
    if (got == header.size() && read_u32(header.data()) == kGlbMagic)
        return read_glb_json(file, header.data(), path);
    std::string text(file.size, '\0');
    std::memcpy(text.data(), header.data(), std::min(got, text.size()));
    if (file.size > got) {
        const std::span rest(reinterpret_cast<std::uint8_t*>(text.data()) + got, file.size - got);
        text.resize(got + read_chunked(file.fd.get(), rest, path));
    }
    return text;
}

}  // namespace batchsim::assets::gltf
