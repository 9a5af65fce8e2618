#include <stb/stb_image.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "asset_test_utils.hpp"
#include "assets/textures.hpp"
#include "core/check.hpp"
#include "core/file_io.hpp"

namespace {

using batchsim::Error;
using batchsim::assets::decode_texture;
using batchsim::assets::full_mip_count;
using batchsim::assets::make_texture;
using batchsim::assets::TextureData;

// Reference sRGB <-> linear conversions (IEC 61966-2-1), written independently of textures.cpp.
double to_linear(std::uint8_t c) {
    const double s = c / 255.0;
    return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
}
int to_srgb(double l) {
    const double s = l <= 0.0031308 ? l * 12.92 : 1.055 * std::pow(l, 1 / 2.4) - 0.055;
    return static_cast<int>(std::lround(s * 255));
}

std::size_t level_offset(const TextureData& t, std::uint32_t level) {
    return batchsim::assets::mip_chain_bytes(t.width, t.height, level);
}

Error::Kind error_kind(auto&& call) {
    try {
        call();
    } catch (const Error& error) {
        return error.kind();
    }
    return Error::Kind::Internal;
}

}  // namespace

TEST_CASE("full_mip_count is floor(log2(max side)) + 1", "[textures]") {
    CHECK(full_mip_count(1, 1) == 1);
    CHECK(full_mip_count(2, 1) == 2);
    CHECK(full_mip_count(256, 256) == 9);
    CHECK(full_mip_count(255, 3) == 8);
    CHECK(full_mip_count(5, 300) == 9);
    CHECK(full_mip_count(16384, 1) == 15);
}

TEST_CASE("mips average in linear light, alpha linearly", "[textures]") {
    // 4x2: left 2x2 block black/white checker, right 2x2 block uniform (10, 200, 60).
    std::vector<std::uint8_t> rgba(std::size_t{4} * 2 * 4);
    const auto set = [&](std::size_t x, std::size_t y, std::array<std::uint8_t, 4> p) {
        std::memcpy(&rgba[(y * 4 + x) * 4], p.data(), 4);
    };
    set(0, 0, {0, 0, 0, 0}), set(1, 0, {255, 255, 255, 255});
    set(0, 1, {255, 255, 255, 255}), set(1, 1, {0, 0, 0, 255});
    for (std::size_t y = 0; y < 2; ++y)
        for (std::size_t x = 2; x < 4; ++x) set(x, y, {10, 200, 60, 100});
    const TextureData t = make_texture("t", 4, 2, rgba);
    REQUIRE(t.mip_count == 3);
    REQUIRE(t.pixels.size() == std::size_t{8 + 2 + 1} * 4);
    CHECK(std::equal(rgba.begin(), rgba.end(), t.pixels.begin()));
    const std::uint8_t* l1 = t.pixels.data() + level_offset(t, 1);  // 2x1
    CHECK(int{l1[0]} == to_srgb(0.5));                              // 188, not the naive 128
    CHECK(int{l1[0]} == 188);
    CHECK(int{l1[3]} == 191);  // (0 + 3 * 255) / 4, rounded
    CHECK(std::vector<int>(l1 + 4, l1 + 8) == std::vector<int>{10, 200, 60, 100});
    const std::uint8_t* l2 = t.pixels.data() + level_offset(t, 2);  // 1x1: all 8 pixels
    const double red = (2 * to_linear(255) + 4 * to_linear(10)) / 8;
    CHECK(std::abs(int{l2[0]} - to_srgb(red)) <= 1);  // float vs double rounding
    CHECK(std::abs(int{l2[1]} - to_srgb((2 * to_linear(255) + 4 * to_linear(200)) / 8)) <= 1);
    CHECK(std::abs(int{l2[3]} - (3 * 255 + 4 * 100 + 4) / 8) <= 1);
}

TEST_CASE("odd sizes halve rounding down and keep every level uniform", "[textures]") {
    const std::vector<std::uint8_t> pixel{90, 30, 220, 255};
    std::vector<std::uint8_t> rgba;
    for (int i = 0; i < 5 * 3; ++i) rgba.insert(rgba.end(), pixel.begin(), pixel.end());
    const TextureData t = make_texture("odd", 5, 3, rgba);
    REQUIRE(t.mip_count == 3);  // 5x3, 2x1, 1x1
    REQUIRE(t.pixels.size() == std::size_t{15 + 2 + 1} * 4);
    for (std::size_t i = 0; i < t.pixels.size(); ++i) CHECK(t.pixels[i] == pixel[i % 4]);
}

TEST_CASE("bad texture sizes and data are rejected", "[textures]") {
    CHECK(error_kind([] { make_texture("z", 0, 4, {}); }) == Error::Kind::CorruptData);
    CHECK(error_kind([] { make_texture("big", 16385, 1, {}); }) == Error::Kind::CorruptData);
    CHECK(error_kind([] { make_texture("short", 2, 2, std::vector<std::uint8_t>(15)); }) ==
          Error::Kind::InvalidArgument);
    const std::vector<std::uint8_t> junk(64, 0x5a);
    CHECK(error_kind([&] { decode_texture(junk, "junk.png"); }) == Error::Kind::CorruptData);
    CHECK(error_kind([] { decode_texture({}, "empty.png"); }) == Error::Kind::CorruptData);
    // A PNG header claiming 20000 x 1: rejected from the header, before decoding.
    std::vector<std::uint8_t> png{0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a, 0,    0, 0,
                                  13,   'I', 'H', 'D', 'R',  0,    0,    0x4e, 0x20, 0, 0,
                                  0,    1,   8,   6,   0,    0,    0,    0,    0,    0, 0};
    try {
        (void)decode_texture(png, "wide.png");
        FAIL("accepted a 20000-pixel-wide texture");
    } catch (const Error& error) {
        CHECK(error.kind() == Error::Kind::CorruptData);
        CHECK_THAT(error.what(), Catch::Contains("wide.png"));
    }
}

TEST_CASE("decode_texture matches stb_image on a real PNG and JPEG", "[textures]") {
    const std::filesystem::path models = batchsim::test::assimp_models();
    if (!std::filesystem::is_directory(models)) {
        WARN("skipped: " << models << " is absent (Debian package assimp-testmodels)");
        return;
    }
    for (const char* file : {"3DS/test.png", "OBJ/SpiderTex.jpg"}) {
        const std::vector<std::uint8_t> bytes = batchsim::read_file(models / file);
        const TextureData t = decode_texture(bytes, file);
        int w = 0, h = 0, n = 0;
        stbi_uc* ref =
            stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w, &h, &n, 4);
        REQUIRE(ref != nullptr);
        CHECK(t.name == file);
        CHECK(t.width == static_cast<std::uint32_t>(w));
        CHECK(t.height == static_cast<std::uint32_t>(h));
        CHECK(t.mip_count == static_cast<std::uint32_t>(std::floor(std::log2(std::max(w, h)))) + 1);
        CHECK(t.pixels.size() == batchsim::assets::mip_chain_bytes(t.width, t.height, t.mip_count));
        CHECK(std::memcmp(t.pixels.data(), ref, static_cast<std::size_t>(w * h * 4)) == 0);
        stbi_image_free(ref);
    }
}
