#include "assets/mtl_checks.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "core/file_io.hpp"
#include "core/strings.hpp"

namespace batchsim::assets {
namespace {

namespace fs = std::filesystem;

constexpr bool is_line_end(char c) {
    return c == '\n' || c == '\r' || c == '\0' || c == '\f';
}

// "newmtl ...": ObjFileMtlImporter::load's case for 'n'/'N' then 'e', which makes one.
bool starts_material(std::string_view s) {
    return s.size() > 1 && (s[0] == 'n' || s[0] == 'N') && s[1] == 'e';
}

// The cases of ObjFileMtlImporter::load that reach getTexture() or the anisotropy: 'm', 'b',
// 'r', "disp", 'n'/'N' then 'o', and 'a' (taken whole: a few of them only look).
bool needs_material(std::string_view s) {
    if (s.empty()) return false;
    if (s[0] == 'm' || s[0] == 'b' || s[0] == 'r' || s[0] == 'a' || s.starts_with("disp"))
        return true;
    return s.size() > 1 && (s[0] == 'n' || s[0] == 'N') && s[1] == 'o';
}

// Any kind of file: a pipe or device named as the library is refused when read, not skipped
// (Assimp would open it and wait for a writer for ever).
bool is_file(const fs::path& path) {
    std::error_code error;
    return fs::exists(path, error) && !fs::is_directory(path, error);
}

}  // namespace

std::optional<fs::path> material_library_path(const fs::path& obj, std::string_view name) {
    if (name.empty()) return std::nullopt;  // Assimp warns and reads none
    // ObjFileImporter: the folder is what comes before the last '/' or '\'.
    const std::string path = obj.string();
    const std::size_t slash = path.find_last_of("\\/");
    const std::string folder = slash == std::string::npos ? "" : path.substr(0, slash);
    const fs::path next_to = folder.empty() ? std::string(name) : folder + "/" + std::string(name);
    if (is_file(next_to)) return next_to;
    const fs::path fallback =
        path.substr(0, path.size() - std::min<std::size_t>(3, path.size())) + "mtl";
    if (is_file(fallback)) return fallback;
    return std::nullopt;
}

void check_material_library(const fs::path& library) {
    const std::vector<std::uint8_t> bytes = read_file(library, "material library");
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    std::size_t line = 1;
    std::size_t start = 0;
    for (std::size_t at = 0; at <= text.size(); ++at) {
        if (at < text.size() && !is_line_end(text[at])) continue;
        std::string_view statement = text.substr(start, at - start);
        // Assimp skips the blanks that start a line (its first line's too, here: stricter)
        statement.remove_prefix(std::min(statement.find_first_not_of(" \t"), statement.size()));
        if (starts_material(statement)) return;
        BATCHSIM_CHECK(!needs_material(statement), CorruptData,
                       str("material library '", library.string(), "' line ", line, ": ",
                           quoted_excerpt(statement),
                           " comes before any newmtl; expected newmtl first (Assimp 5.2.5 "
                           "would store it into a material that does not exist, and crash)"));
        if (at < text.size() && text[at] == '\n') ++line;
        start = at + 1;
    }
}

}  // namespace batchsim::assets
