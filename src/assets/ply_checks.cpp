#include "assets/ply_checks.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

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

std::vector<std::string_view> words(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t at = 0;
    while (true) {
        at = line.find_first_not_of(" \t\r", at);
        if (at == std::string_view::npos) return out;
        const std::size_t end = std::min(line.find_first_of(" \t\r", at), line.size());
        out.push_back(line.substr(at, end - at));
        at = end;
    }
}

bool all_digits(std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
}

// An "element NAME COUNT" line: a name that does not start with a digit (Assimp 5.2.5 takes
// digits there for the count, and reserves memory for all of them: a 91 GB allocation from
// a 669-byte file, found by fuzz_importer) and a count no larger than the file's bytes
// (every element takes at least one), so Assimp never reserves for elements that cannot be
// there.
void check_element_line(std::string_view line, std::uintmax_t file_bytes,
                        const std::filesystem::path& path) {
    const std::vector<std::string_view> w = words(line);
    if (w.empty() || w[0] != "element") return;
    const bool named = w.size() >= 2 && !std::isdigit(static_cast<unsigned char>(w[1][0]));
    const bool counted = w.size() >= 3 && all_digits(w[2]) && w[2].size() <= 19 &&
                         std::stoull(std::string(w[2])) <= file_bytes;
    BATCHSIM_CHECK(named && counted, CorruptData,
                   str("model '", path.string(), "': PLY header line '", line.substr(0, 60),
                       "': expected 'element NAME COUNT' with a name and at most ", file_bytes,
                       " elements (the file's bytes)"));
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
    const std::uintmax_t file_bytes = std::filesystem::file_size(path);
    for (std::size_t start = 0; start < header.size();) {
        const std::size_t end = std::min(header.find('\n', start), header.size());
        const std::string_view line = std::string_view(header).substr(start, end - start);
        if (words(line) == std::vector<std::string_view>{"end_header"}) return;
        check_element_line(line, file_bytes, path);
        start = end + 1;
    }
}

}  // namespace batchsim::assets
