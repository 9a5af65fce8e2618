#include "assets/file_kinds.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace batchsim::assets {
namespace {

struct Magic {
    FileKind kind;
    std::size_t offset;
    std::string_view bytes;
    std::string_view description;
};

using namespace std::string_view_literals;

// Longest and most specific first: a WebP is a RIFF file with "WEBP" at byte 8.
constexpr std::array kMagics{
    Magic{FileKind::Png, 0, "\x89PNG\r\n\x1a\n"sv, "a PNG image"},
    Magic{FileKind::Jpeg, 0, "\xff\xd8\xff"sv, "a JPEG image"},
    Magic{FileKind::Gif, 0, "GIF8"sv, "a GIF image"},
    Magic{FileKind::Bmp, 0, "BM"sv, "a BMP image"},
    Magic{FileKind::WebP, 8, "WEBP"sv, "a WebP image"},
    Magic{FileKind::Ktx, 0, "\xabKTX "sv, "a KTX / KTX2 (Basis Universal) image"},
    Magic{FileKind::Gzip, 0, "\x1f\x8b"sv, "a gzip archive"},
    Magic{FileKind::Zip, 0, "PK\x03\x04"sv, "a zip archive"},
    Magic{FileKind::Bzip2, 0, "BZh"sv, "a bzip2 archive"},
    Magic{FileKind::Xz, 0, "\xfd\x37\x7a\x58\x5a\x00"sv, "an xz archive"},
    Magic{FileKind::Zstd, 0, "\x28\xb5\x2f\xfd"sv, "a zstd archive"},
    Magic{FileKind::SevenZip, 0, "7z\xbc\xaf\x27\x1c"sv, "a 7-Zip archive"},
    Magic{FileKind::Pdf, 0, "%PDF"sv, "a PDF document"},
    Magic{FileKind::Elf, 0, "\x7f\x45\x4c\x46"sv, "an ELF executable"},
    Magic{FileKind::Glb, 0, "glTF"sv, "a GLB (binary glTF) model"},
    Magic{FileKind::PackedScene, 0, "BSSCENE\0"sv, "a batchsim packed scene (.bsscene)"},
    Magic{FileKind::HabitatNavMesh, 0, "TESM"sv, "a Habitat .navmesh"},
};

bool starts_with(std::span<const std::uint8_t> head, const Magic& magic) {
    if (head.size() < magic.offset + magic.bytes.size()) return false;
    const std::span<const std::uint8_t> at = head.subspan(magic.offset);
    return std::equal(magic.bytes.begin(), magic.bytes.end(), at.begin(),
                      [](char a, std::uint8_t b) { return static_cast<std::uint8_t>(a) == b; });
}

std::uint32_t big_endian(std::span<const std::uint8_t> b, std::size_t at, std::size_t n) {
    std::uint32_t out = 0;
    for (std::size_t i = 0; i < n; ++i) out = out << 8 | b[at + i];
    return out;
}

std::uint32_t little_endian(std::span<const std::uint8_t> b, std::size_t at, std::size_t n) {
    std::uint32_t out = 0;
    for (std::size_t i = n; i-- > 0;) out = out << 8 | b[at + i];
    return out;
}

bool is_start_of_frame(std::uint8_t marker) {
    return marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc;
}

// The first SOFn segment's size, walking the JPEG's segments from the start.
std::optional<ImageSize> jpeg_size(std::span<const std::uint8_t> b) {
    std::size_t at = 2;
    while (at + 4 <= b.size()) {
        if (b[at] != 0xff) return std::nullopt;
        const std::uint8_t marker = b[at + 1];
        if (marker == 0xff) {  // fill byte
            ++at;
            continue;
        }
        if (marker == 0x01 || (marker >= 0xd0 && marker <= 0xd9)) {  // no length
            at += 2;
            continue;
        }
        const std::uint32_t length = big_endian(b, at + 2, 2);
        if (is_start_of_frame(marker) && at + 9 <= b.size())
            return ImageSize{big_endian(b, at + 7, 2), big_endian(b, at + 5, 2)};
        at += 2 + length;
    }
    return std::nullopt;
}

}  // namespace

FileKind sniff_file_kind(std::span<const std::uint8_t> head) {
    for (const Magic& magic : kMagics)
        if (starts_with(head, magic)) return magic.kind;
    return FileKind::Unknown;
}

std::string_view describe(FileKind kind) {
    for (const Magic& magic : kMagics)
        if (magic.kind == kind) return magic.description;
    return "";
}

bool is_image(FileKind kind) {
    return kind == FileKind::Png || kind == FileKind::Jpeg || kind == FileKind::Gif ||
           kind == FileKind::Bmp || kind == FileKind::WebP || kind == FileKind::Ktx;
}

FileKind image_kind_named(std::string_view extension_or_mime) {
    std::string name(extension_or_mime.substr(extension_or_mime.find_last_of("./") + 1));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == "png") return FileKind::Png;
    if (name == "jpg" || name == "jpeg") return FileKind::Jpeg;
    if (name == "gif") return FileKind::Gif;
    if (name == "bmp") return FileKind::Bmp;
    if (name == "webp") return FileKind::WebP;
    if (name == "ktx" || name == "ktx2") return FileKind::Ktx;
    return FileKind::Unknown;
}

std::optional<ImageSize> declared_image_size(std::span<const std::uint8_t> bytes) {
    switch (sniff_file_kind(bytes)) {
        case FileKind::Png:  // IHDR, the first chunk: width and height at bytes 16 and 20
            if (bytes.size() < 24) return std::nullopt;
            return ImageSize{big_endian(bytes, 16, 4), big_endian(bytes, 20, 4)};
        case FileKind::Jpeg: return jpeg_size(bytes);
        case FileKind::Gif:
            if (bytes.size() < 10) return std::nullopt;
            return ImageSize{little_endian(bytes, 6, 2), little_endian(bytes, 8, 2)};
        case FileKind::Bmp: {  // a negative height is a top-down BMP
            if (bytes.size() < 26) return std::nullopt;
            const auto height = static_cast<std::int32_t>(little_endian(bytes, 22, 4));
            return ImageSize{little_endian(bytes, 18, 4),
                             static_cast<std::uint32_t>(height < 0 ? -std::int64_t{height}
                                                                   : std::int64_t{height})};
        }
        default: return std::nullopt;
    }
}

}  // namespace batchsim::assets
