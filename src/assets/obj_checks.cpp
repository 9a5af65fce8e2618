#include "assets/obj_checks.hpp"

#include <assimp/BaseImporter.h>
#include <assimp/Importer.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "assets/mtl_checks.hpp"
#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::assets {
namespace {

namespace fs = std::filesystem;

// ---- Which loader Assimp 5.2.5 picks (Importer::ReadFile): the only one that claims the
// extension; else the first of the claimants whose content test passes; else the first of all.

bool has_extension(std::string_view name, std::string_view extension) {
    if (name.size() <= extension.size()) return false;
    const std::string_view tail = name.substr(name.size() - extension.size() - 1);
    return tail[0] == '.' &&
           std::equal(extension.begin(), extension.end(), tail.begin() + 1, [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) ==
                      std::tolower(static_cast<unsigned char>(b));
           });
}

std::vector<Assimp::BaseImporter*> loaders(const Assimp::Importer& importer,
                                           const std::string& claimed_by = {}) {
    std::vector<Assimp::BaseImporter*> out;
    for (std::size_t i = 0; i < importer.GetImporterCount(); ++i) {
        Assimp::BaseImporter* loader = importer.GetImporter(i);
        std::set<std::string> extensions;
        loader->GetExtensionList(extensions);
        if (claimed_by.empty() ||
            std::any_of(extensions.begin(), extensions.end(),
                        [&](const std::string& e) { return has_extension(claimed_by, e); }))
            out.push_back(loader);
    }
    return out;
}

const Assimp::BaseImporter* first_to_read(const std::vector<Assimp::BaseImporter*>& candidates,
                                          const std::string& name, Assimp::IOSystem* io) {
    for (const Assimp::BaseImporter* loader : candidates)
        if (loader->CanRead(name, io, true)) return loader;
    return nullptr;
}

// ---- Statements as Assimp 5.2.5's OBJ parser sees them.

constexpr bool is_line_end(char c) {
    return c == '\n' || c == '\r' || c == '\0' || c == '\f';
}

std::string_view first_word(std::string_view text) {
    return text.substr(0, text.find_first_of(" \t"));
}

enum Kind : std::size_t { kVertex, kUv, kNormal };
constexpr std::array<const char*, 3> kKindNames = {"vertex", "texture coordinate", "normal"};
constexpr std::array<const char*, 3> kKindStatements = {"v", "vt", "vn"};
constexpr std::string_view kExpectedToken =
    "expected v, v/vt, v//vn or v/vt/vn with indices counted from 1 (or back from -1)";

// "12" or "-3" as a number (0 for "0" and "-0"); nullopt for anything else, leading zeros
// included: Assimp 5.2.5 reads "012" as two indices, 12 and 2.
std::optional<std::int64_t> parse_index(std::string_view text) {
    const bool negative = text.starts_with('-');
    const std::string_view digits = text.substr(negative ? 1 : 0);
    constexpr std::size_t kMaxDigits = 18;  // fits int64; far beyond any real count
    if (digits.empty() || digits.size() > kMaxDigits || (digits[0] == '0' && digits.size() > 1))
        return std::nullopt;
    std::int64_t value = 0;
    for (const char c : digits) {
        if (c < '0' || c > '9') return std::nullopt;
        value = value * 10 + (c - '0');
    }
    return negative ? -value : value;
}

// Face, line and point elements checked against the vertices, texture coordinates and
// normals defined; forward references are checked at the end, as Assimp checks them.
class ElementScan {
public:
    explicit ElementScan(std::string origin) : origin_(std::move(origin)) {}

    void statement(std::string_view text, std::size_t line) {
        text = text.substr(0, std::find_if(text.begin(), text.end(), is_line_end) - text.begin());
        if (in_cstype_) {  // free-form geometry, skipped up to its "end"
            in_cstype_ = !(text.starts_with('e') && first_word(text) == "end");
            return;
        }
        if (text.empty()) return;
        if (text[0] == 'v') count_definition(text);
        if (text[0] == 'c') in_cstype_ = first_word(text) == "cstype";
        if (text[0] == 'm' && first_word(text) == "mtllib") libraries_.emplace_back(rest(text));
        if (text[0] == 'f' || text[0] == 'l' || text[0] == 'p') check_element(text, line);
    }

    void finish() const {
        for (const Kind kind : {kVertex, kUv, kNormal}) {
            if (highest_[kind] <= defined_[kind]) continue;
            fail(highest_line_[kind],
                 str("an element refers to ", kKindNames[kind], " ", highest_[kind],
                     ", but the file defines ", defined_[kind], " (", kKindStatements[kind],
                     " statements); ", kExpectedToken));
        }
    }

    // The names of the material libraries (mtllib), in order.
    [[nodiscard]] const std::vector<std::string>& libraries() const { return libraries_; }

    [[noreturn]] void fail(std::size_t line, std::string_view what) const {
        throw_error(Error::Kind::CorruptData, str("model '", origin_, "' line ", line, ": ", what),
                    __FILE__, __LINE__);
    }

private:
    // Counts as Assimp does: "v " or "v\t" (at most: it skips 1, 2 or 5 numbers), "vt", "vn".
    void count_definition(std::string_view text) {
        const char second = text.size() > 1 ? text[1] : '\n';
        if (second == ' ' || second == '\t') ++defined_[kVertex];
        if (second == 't') ++defined_[kUv];
        if (second == 'n') ++defined_[kNormal];
    }

    // What follows the statement's first word and the blanks after it (getNextToken).
    static std::string_view rest(std::string_view text) {
        text.remove_prefix(first_word(text).size());
        return text.substr(std::min(text.find_first_not_of(" \t"), text.size()));
    }

    // Assimp reads any statement starting with f, l or p ("lod 2" too) as an element.
    void check_element(std::string_view text, std::size_t line) {
        std::string_view tokens = rest(text);
        std::size_t vertices = 0;
        while (!tokens.empty()) {
            check_token(tokens.substr(0, tokens.find_first_of(" \t")), text, line);
            tokens.remove_prefix(std::min(tokens.find_first_of(" \t"), tokens.size()));
            tokens.remove_prefix(std::min(tokens.find_first_not_of(" \t"), tokens.size()));
            ++vertices;
        }
        if (text[0] == 'l' && vertices == 1)
            fail(line, str("line element ", quoted_excerpt(text),
                           " has 1 vertex index; expected at least 2 (Assimp 5.2.5 reads every "
                           "statement that starts with 'l' as a line element, and one with a "
                           "single index corrupts its memory: assimp#4925)"));
    }

    void check_token(std::string_view token, std::string_view text, std::size_t line) {
        std::array<std::string_view, 3> parts{};
        std::size_t count = 0;
        for (std::size_t start = 0;; ++count) {
            const std::size_t slash = token.find('/', start);
            if (count == parts.size()) fail(line, bad_token(token, text, "more than 3 indices"));
            parts[count] = token.substr(start, slash - start);
            if (slash == std::string_view::npos) break;
            start = slash + 1;
        }
        // With no texture coordinate yet but a normal, Assimp reads "v/x" as v and normal x,
        // and a third index after that as a fourth.
        const bool uv_is_normal = defined_[kUv] == 0 && defined_[kNormal] > 0;
        if (uv_is_normal && !parts[1].empty() && !parts[2].empty())
            fail(line,
                 bad_token(token, text, "a texture coordinate, but none is defined before it"));
        if (parts[0].empty()) fail(line, bad_token(token, text, "no vertex index"));
        refer(kVertex, parts[0], token, text, line);
        if (!parts[1].empty()) refer(uv_is_normal ? kNormal : kUv, parts[1], token, text, line);
        if (!parts[2].empty()) refer(kNormal, parts[2], token, text, line);
    }

    void refer(Kind kind, std::string_view part, std::string_view token, std::string_view text,
               std::size_t line) {
        const std::optional<std::int64_t> index = parse_index(part);
        if (!index) fail(line, bad_token(token, text, "not an index"));
        if (*index == 0) fail(line, bad_token(token, text, "index 0 (OBJ counts from 1)"));
        if (*index > 0) {
            if (static_cast<std::uint64_t>(*index) > highest_[kind]) {
                highest_[kind] = static_cast<std::uint64_t>(*index);
                highest_line_[kind] = line;
            }
            return;
        }
        if (static_cast<std::uint64_t>(-*index) > defined_[kind])
            fail(line, bad_token(token, text,
                                 str(kKindNames[kind], " ", *index, " counts back past the ",
                                     defined_[kind], " defined before it")));
    }

    static std::string bad_token(std::string_view token, std::string_view text,
                                 std::string_view why) {
        return str("element ", quoted_excerpt(text), ": ", quoted_excerpt(token), ": ", why, "; ",
                   kExpectedToken);
    }

    std::string origin_;
    std::array<std::uint64_t, 3> defined_{};
    std::array<std::uint64_t, 3> highest_{};  // highest 1-based index referred to
    std::array<std::size_t, 3> highest_line_{};
    std::vector<std::string> libraries_;
    bool in_cstype_ = false;
};

// Cuts the bytes into statements as Assimp 5.2.5's IOStreamBuffer::getNextDataLine does: a
// '\' followed by a line end skips to just past the next '\n' and then takes the byte there
// as it is, whatever it is.
class StatementReader {
public:
    explicit StatementReader(ElementScan& scan) : scan_(scan) {}

    void feed(std::string_view bytes) {
        for (const char c : bytes) byte(c);
    }

    void finish() {
        // Assimp would look past the end of the file for the continuation.
        if (state_ != State::Text)
            scan_.fail(continued_,
                       "the file ends in a '\\' line continuation; expected more lines");
        if (!text_.empty()) scan_.statement(text_, start_);
        scan_.finish();
    }

private:
    enum class State { Text, Backslash, Skipping, Literal };

    void byte(char c) {
        if (c == '\n') ++line_;
        switch (state_) {
            case State::Skipping: state_ = c == '\n' ? State::Literal : State::Skipping; return;
            case State::Literal:
                state_ = State::Text;
                text_ += c;
                return;
            case State::Backslash:
                if (is_line_end(c)) {
                    state_ = c == '\n' ? State::Literal : State::Skipping;
                    return;
                }
                state_ = State::Text;
                text_ += '\\';
                break;
            case State::Text: break;
        }
        if (c == '\\') {
            state_ = State::Backslash;
            continued_ = line_;
        } else if (is_line_end(c)) {
            scan_.statement(text_, start_);
            text_.clear();
            start_ = line_;
        } else {
            text_ += c;
        }
    }

    ElementScan& scan_;
    std::string text_;
    std::size_t line_ = 1;       // the line being read (counting '\n')
    std::size_t start_ = 1;      // the line where text_ began
    std::size_t continued_ = 1;  // the line of the last '\'
    State state_ = State::Text;
};

}  // namespace

bool assimp_reads_as_obj(const Assimp::Importer& importer, const fs::path& path) {
    const Assimp::BaseImporter* obj = importer.GetImporter("obj");
    const std::string name = path.string();
    const std::vector<Assimp::BaseImporter*> claimants = loaders(importer, name);
    if (claimants.size() == 1) return claimants.front() == obj;
    const Assimp::BaseImporter* picked = first_to_read(claimants, name, importer.GetIOHandler());
    if (picked == nullptr) picked = first_to_read(loaders(importer), name, importer.GetIOHandler());
    return obj != nullptr && picked == obj;
}

void check_obj_elements(const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    BATCHSIM_CHECK(file.good(), Io, str("cannot open model '", path.string(), "'"));
    ElementScan scan(path.string());
    StatementReader reader(scan);
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    std::string chunk(kChunk, '\0');
    while (file) {
        file.read(chunk.data(), static_cast<std::streamsize>(kChunk));
        reader.feed(std::string_view(chunk.data(), static_cast<std::size_t>(file.gcount())));
    }
    BATCHSIM_CHECK(file.eof(), Io, str("cannot read model '", path.string(), "'"));
    reader.finish();
    for (const std::string& name : scan.libraries()) {
        const std::optional<fs::path> library = material_library_path(path, name);
        if (!library) continue;
        try {
            check_material_library(*library);
        } catch (const Error& error) {  // say whose library it is
            throw Error(error.kind(), str("model '", path.string(), "': ", error.what()));
        }
    }
}

}  // namespace batchsim::assets
