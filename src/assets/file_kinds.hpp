// What a file's first bytes say it is, so that a misnamed input is named for what it is
// ("'x.glb' is a PNG image, not a glTF model") rather than for the parser it confused.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace batchsim::assets {

// The kinds of file batchsim's inputs are mistaken for, told by their magic bytes.
enum class FileKind {
    Unknown,
    Png,
    Jpeg,
    Gif,
    Bmp,
    WebP,
    Ktx,
    Gzip,
    Zip,
    Bzip2,
    Xz,
    Zstd,
    SevenZip,
    Pdf,
    Elf,
    Glb,
    PackedScene,
    HabitatNavMesh,
};

// The kind `head` (a file's first bytes; 16 are enough) starts as; Unknown if none.
FileKind sniff_file_kind(std::span<const std::uint8_t> head);

// "a PNG image", "a gzip archive", ...; "" for Unknown.
std::string_view describe(FileKind kind);

// PNG, JPEG, GIF, BMP, WebP or KTX.
bool is_image(FileKind kind);

// The image kind a texture's file extension or glTF mimeType names ("png", ".JPG",
// "image/jpeg"), or Unknown.
FileKind image_kind_named(std::string_view extension_or_mime);

struct ImageSize {
    std::uint32_t width = 0;
    std::uint32_t height = 0;
};

// The width and height a PNG, JPEG, GIF or BMP header declares, read without decoding (a
// decoder refuses a huge image only as "unknown" or "too large"); nullopt if none is found.
std::optional<ImageSize> declared_image_size(std::span<const std::uint8_t> bytes);

}  // namespace batchsim::assets
