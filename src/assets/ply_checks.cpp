#include "assets/ply_checks.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>
#include <string_view>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::assets {
namespace {

// Up to `limit` bytes from the start of the file.
std::string read_prefix(const std::filesystem::path& path, std::size_t limit) {
    std::ifstream file(path, std::ios::binary);
    BATCHSIM_CHECK(file.good(), Io, str("cannot open model '", path.string(), "'"));
    std::string bytes(limit, '\0');
    file.read(bytes.data(), static_cast<std::streamsize>(limit));
    bytes.resize(static_cast<std::size_t>(file.gcount()));
    return bytes;
}

// True if a line of `header` is end_header (trailing spaces or a CR allowed, as Assimp reads).
bool has_end_header(std::string_view header) {
    constexpr std::string_view kEnd = "end_header";
    for (std::size_t at = header.find(kEnd); at != std::string_view::npos;
         at = header.find(kEnd, at + 1)) {
        const bool line_start = at == 0 || header[at - 1] == '\n' || header[at - 1] == '\r';
        const std::size_t after = at + kEnd.size();
        const bool line_end =
            after == header.size() || std::isspace(static_cast<unsigned char>(header[after]));
        if (line_start && line_end) return true;
    }
    return false;
}

}  // namespace

bool is_ply(const std::filesystem::path& path) {
    std::string extension = path.extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return extension == ".ply" || read_prefix(path, 3) == "ply";
}

void check_ply_header(const std::filesystem::path& path) {
    const std::string header = read_prefix(path, kMaxPlyHeaderBytes);
    BATCHSIM_CHECK(has_end_header(header), CorruptData,
                   str("model '", path.string(), "': PLY header has no end_header line",
                       header.size() == kMaxPlyHeaderBytes ? " in its first 1 MiB" : "",
                       " (a truncated or damaged file?)"));
}

}  // namespace batchsim::assets
