// assets/file_kinds: magic bytes and the sizes image headers declare, against hand-made
// headers (the bytes each format's specification lays down).
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "assets/file_kinds.hpp"

namespace {

using batchsim::assets::declared_image_size;
using batchsim::assets::describe;
using batchsim::assets::FileKind;
using batchsim::assets::image_kind_named;
using batchsim::assets::sniff_file_kind;

std::vector<std::uint8_t> bytes(std::initializer_list<int> values) {
    std::vector<std::uint8_t> out;
    for (int v : values) out.push_back(static_cast<std::uint8_t>(v));
    return out;
}

}  // namespace

TEST_CASE("file kinds are told by their magic bytes", "[file_kinds]") {
    CHECK(sniff_file_kind(bytes({0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0})) == FileKind::Png);
    CHECK(sniff_file_kind(bytes({0xff, 0xd8, 0xff, 0xe0})) == FileKind::Jpeg);
    CHECK(sniff_file_kind(bytes({'R', 'I', 'F', 'F', 1, 2, 3, 4, 'W', 'E', 'B', 'P'})) ==
          FileKind::WebP);
    CHECK(sniff_file_kind(bytes({0x1f, 0x8b, 8})) == FileKind::Gzip);
    CHECK(sniff_file_kind(bytes({'P', 'K', 3, 4})) == FileKind::Zip);
    CHECK(sniff_file_kind(bytes({0x7f, 'E', 'L', 'F'})) == FileKind::Elf);
    CHECK(sniff_file_kind(bytes({'g', 'l', 'T', 'F', 2, 0, 0, 0})) == FileKind::Glb);
    CHECK(sniff_file_kind(bytes({'B', 'S', 'S', 'C', 'E', 'N', 'E', 0})) == FileKind::PackedScene);
    CHECK(sniff_file_kind(bytes({'T', 'E', 'S', 'M', 2, 0, 0, 0})) == FileKind::HabitatNavMesh);
    CHECK(sniff_file_kind(bytes({'{', '"', 'a'})) == FileKind::Unknown);
    CHECK(sniff_file_kind(bytes({0x89, 'P'})) == FileKind::Unknown);  // too short to tell
    CHECK(sniff_file_kind({}) == FileKind::Unknown);
    CHECK(describe(FileKind::Png) == "a PNG image");
    CHECK(describe(FileKind::Unknown).empty());
    CHECK(image_kind_named(".PNG") == FileKind::Png);
    CHECK(image_kind_named("image/jpeg") == FileKind::Jpeg);
    CHECK(image_kind_named("jpg") == FileKind::Jpeg);
    CHECK(image_kind_named("") == FileKind::Unknown);
}

TEST_CASE("image headers give their declared size without decoding", "[file_kinds]") {
    // PNG: IHDR's width and height, big-endian, at bytes 16 and 20.
    const auto png = bytes({0x89, 'P', 'N', 'G', 13, 10, 26,   10,   0, 0, 0,    13,
                            'I',  'H', 'D', 'R', 0,  0,  0xea, 0x60, 0, 0, 0x75, 0x30});
    const auto png_size = declared_image_size(png);
    REQUIRE(png_size);
    CHECK((png_size->width == 60000 && png_size->height == 30000));
    // JPEG: an APP0 segment, then SOF0 (length, precision, height, width).
    const auto jpeg = bytes(
        {0xff, 0xd8, 0xff, 0xe0, 0, 4, 'J', 'F', 0xff, 0xc0, 0, 17, 8, 0x4e, 0x20, 0x01, 0x00, 3});
    const auto jpeg_size = declared_image_size(jpeg);
    REQUIRE(jpeg_size);
    CHECK((jpeg_size->width == 256 && jpeg_size->height == 20000));
    // GIF: little-endian 16-bit width and height at byte 6.
    const auto gif = declared_image_size(bytes({'G', 'I', 'F', '8', '9', 'a', 0x10, 0x27, 3, 0}));
    REQUIRE(gif);
    CHECK((gif->width == 10000 && gif->height == 3));
    // BMP: 32-bit width and height at 18 and 22; a negative height is a top-down image.
    std::vector<std::uint8_t> bmp(26, 0);
    bmp[0] = 'B', bmp[1] = 'M', bmp[18] = 0x20, bmp[19] = 0x4e;      // 20000
    bmp[22] = 0xfe, bmp[23] = 0xff, bmp[24] = 0xff, bmp[25] = 0xff;  // -2
    const auto bmp_size = declared_image_size(bmp);
    REQUIRE(bmp_size);
    CHECK((bmp_size->width == 20000 && bmp_size->height == 2));
    // Truncated headers and other kinds: nothing declared.
    CHECK_FALSE(declared_image_size(bytes({0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0})));
    CHECK_FALSE(declared_image_size(bytes({0xff, 0xd8, 0xff, 0xe0, 0, 4, 'J', 'F'})));
    CHECK_FALSE(declared_image_size(bytes({0x1f, 0x8b, 8, 0})));
}
