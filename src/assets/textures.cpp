#include "assets/textures.hpp"

#include <stb/stb_image.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>

#include "assets/file_kinds.hpp"
#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::assets {
namespace {

constexpr std::size_t kChannels = 4;

// sRGB byte -> linear [0, 1], tabulated once: mips average light, not encoded values.
const std::array<float, 256>& srgb_to_linear_table() {
    static const std::array<float, 256> table = [] {
        std::array<float, 256> out{};
        for (std::size_t i = 0; i < out.size(); ++i) {
            const float c = static_cast<float>(i) / 255.0f;
            out[i] = c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f);
        }
        return out;
    }();
    return table;
}

void check_size(std::uint32_t width, std::uint32_t height, const std::string& name) {
    BATCHSIM_CHECK(
        width > 0 && height > 0 && width <= kMaxTextureSize && height <= kMaxTextureSize,
        CorruptData,
        str("texture '", name, "' is ", width, "x", height, "; expected 1 to ", kMaxTextureSize,
            " pixels per side (kMaxTextureSize: ", kMaxTextureSizeWhy, "); scale it down first"));
}

// One box-filtered level: each destination pixel averages the source pixels it covers
// (exactly 2x2 for even sizes; 2 or 3 wide for odd ones, so no source pixel is skipped).
void downsample(const std::uint8_t* src, std::uint32_t sw, std::uint32_t sh, std::uint8_t* dst,
                std::uint32_t dw, std::uint32_t dh) {
    const auto& to_linear = srgb_to_linear_table();
    for (std::uint32_t y = 0; y < dh; ++y) {
        const std::uint32_t y0 = y * sh / dh, y1 = (y + 1) * sh / dh;
        for (std::uint32_t x = 0; x < dw; ++x) {
            const std::uint32_t x0 = x * sw / dw, x1 = (x + 1) * sw / dw;
            std::array<float, kChannels> sum{};
            for (std::uint32_t sy = y0; sy < y1; ++sy) {
                for (std::uint32_t sx = x0; sx < x1; ++sx) {
                    const std::uint8_t* p = src + (std::size_t{sy} * sw + sx) * kChannels;
                    for (std::size_t c = 0; c < 3; ++c) sum[c] += to_linear[p[c]];
                    sum[3] += static_cast<float>(p[3]) / 255.0f;  // alpha is linear already
                }
            }
            const float inv = 1.0f / static_cast<float>((y1 - y0) * (x1 - x0));
            std::uint8_t* q = dst + (std::size_t{y} * dw + x) * kChannels;
            for (std::size_t c = 0; c < 3; ++c) q[c] = linear_to_srgb_byte(sum[c] * inv);
            q[3] = static_cast<std::uint8_t>(
                std::lround(std::clamp(sum[3] * inv, 0.0f, 1.0f) * 255.0f));
        }
    }
}

// The first bytes of an undecodable image in hex, to tell a format from garbage.
std::string leading_bytes(std::span<const std::uint8_t> bytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < std::min<std::size_t>(bytes.size(), 8); ++i)
        out += str(i ? " " : "", kHex[bytes[i] >> 4], kHex[bytes[i] & 15]);
    return out;
}

constexpr std::string_view kDecodedFormats = "PNG, JPEG, TGA, BMP, PSD, GIF, HDR, PIC or PNM";

// ", which its name or mimeType says it is: a PNG image", for messages; "" if it says none.
std::string said_to_be(FileKind declared) {
    if (declared == FileKind::Unknown) return "";
    return str("; its name or mimeType says ", describe(declared));
}

// Refuses bytes that are no image batchsim decodes, named for what they are. An image of
// another kind than its name says (a JPEG named .png, common in the wild) decodes as what it
// is: stb_image reads the bytes, not the name.
void check_image_kind(std::span<const std::uint8_t> encoded, const std::string& name,
                      FileKind declared) {
    const FileKind actual = sniff_file_kind(encoded);
    BATCHSIM_CHECK(actual != FileKind::Ktx, Unsupported,
                   str("texture '", name, "' is a KTX / KTX2 (Basis Universal) image, which ",
                       "batchsim cannot decode; convert it to PNG first (KTX-Software: `ktx ",
                       "extract in.ktx2 out.png`; a glTF: `gltf-transform ktxdecompress in.glb ",
                       "out.glb`)"));
    BATCHSIM_CHECK(actual != FileKind::WebP, Unsupported,
                   str("texture '", name, "' is a WebP image, which batchsim cannot decode",
                       said_to_be(declared), "; convert it to PNG or JPEG first (e.g. `dwebp ",
                       "in.webp -o out.png`; a glTF: `gltf-transform png in.glb out.glb`)"));
    BATCHSIM_CHECK(actual == FileKind::Unknown || is_image(actual), CorruptData,
                   str("texture '", name, "' is ", describe(actual), ", not an image",
                       said_to_be(declared), " (batchsim decodes ", kDecodedFormats, ")"));
}

}  // namespace

std::uint8_t linear_to_srgb_byte(float linear) {
    const float l = linear > 0 ? std::min(linear, 1.0f) : 0.0f;  // NaN -> 0
    const float c = l <= 0.0031308f ? l * 12.92f : 1.055f * std::pow(l, 1.0f / 2.4f) - 0.055f;
    return static_cast<std::uint8_t>(std::lround(c * 255.0f));
}

std::uint32_t full_mip_count(std::uint32_t width, std::uint32_t height) {
    return static_cast<std::uint32_t>(std::bit_width(std::max({width, height, 1u})));
}

TextureData make_texture(std::string name, std::uint32_t width, std::uint32_t height,
                         std::vector<std::uint8_t> rgba) {
    check_size(width, height, name);
    const std::size_t level0 = std::size_t{width} * height * kChannels;
    BATCHSIM_CHECK(rgba.size() == level0, InvalidArgument,
                   str("texture '", name, "': expected ", level0, " RGBA8 bytes for ", width, "x",
                       height, ", got ", rgba.size()));
    TextureData texture{std::move(name), width, height, full_mip_count(width, height), {}};
    texture.pixels = std::move(rgba);
    texture.pixels.resize(mip_chain_bytes(width, height, texture.mip_count));
    std::size_t offset = 0;
    std::uint32_t w = width, h = height;
    for (std::uint32_t level = 1; level < texture.mip_count; ++level) {
        const std::uint32_t nw = std::max(w / 2, 1u), nh = std::max(h / 2, 1u);
        const std::size_t next = offset + std::size_t{w} * h * kChannels;
        downsample(texture.pixels.data() + offset, w, h, texture.pixels.data() + next, nw, nh);
        offset = next;
        w = nw;
        h = nh;
    }
    return texture;
}

TextureData decode_texture(std::span<const std::uint8_t> encoded, std::string name,
                           FileKind declared) {
    BATCHSIM_CHECK(!encoded.empty() && encoded.size() <= std::size_t{INT32_MAX}, CorruptData,
                   str("texture '", name, "' has ", encoded.size(), " bytes"));
    if (declared == FileKind::Unknown)
        declared = image_kind_named(std::filesystem::path(name).extension().string());
    check_image_kind(encoded, name, declared);
    // The header's size first: a huge one is refused as such, never allocated, and never
    // left to stb_image, which calls it an "unknown image type".
    if (const std::optional<ImageSize> size = declared_image_size(encoded))
        check_size(size->width, size->height, name);
    const int length = static_cast<int>(encoded.size());
    int w = 0, h = 0, channels = 0;
    BATCHSIM_CHECK(stbi_info_from_memory(encoded.data(), length, &w, &h, &channels) != 0,
                   CorruptData,
                   str("cannot decode texture '", name, "': ", stbi_failure_reason(), " (expected ",
                       kDecodedFormats, "; its first bytes are ", leading_bytes(encoded),
                       said_to_be(declared), ")"));
    check_size(static_cast<std::uint32_t>(std::max(w, 0)),
               static_cast<std::uint32_t>(std::max(h, 0)), name);
    const std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
        stbi_load_from_memory(encoded.data(), length, &w, &h, &channels, kChannels),
        stbi_image_free);
    BATCHSIM_CHECK(pixels != nullptr, CorruptData,
                   str("cannot decode texture '", name, "': ", stbi_failure_reason()));
    const auto width = static_cast<std::uint32_t>(w), height = static_cast<std::uint32_t>(h);
    std::vector<std::uint8_t> rgba(pixels.get(),
                                   pixels.get() + std::size_t{width} * height * kChannels);
    return make_texture(std::move(name), width, height, std::move(rgba));
}

}  // namespace batchsim::assets
