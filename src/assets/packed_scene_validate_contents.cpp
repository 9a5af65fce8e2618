// Validation of what a packed scene's sections hold, on their raw bytes (after any
// inflating): counts against the info record, finite floats, index, chunk, material and
// texture ranges. Every failure names the file and what was expected.
#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "assets/packed_scene_format.hpp"
#include "assets/texture_groups.hpp"
#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::assets::packed {
namespace {

struct Context {
    std::string_view origin;
};

[[noreturn]] void fail(const Context& ctx, const std::string& what) {
    throw Error(Error::Kind::CorruptData, str("packed scene ", ctx.origin, ": ", what));
}

void check_count(const Context& ctx, std::uint32_t stated, std::size_t held, SectionKind kind) {
    if (stated != held)
        fail(ctx, str("info says ", stated, " ", section_name(kind), " but section '",
                      section_name(kind), "' holds ", held));
}

void check_string(const Context& ctx, const Validated& v, std::uint32_t offset,
                  std::uint32_t length, const std::string& what) {
    const std::size_t size = v.section(SectionKind::Strings).size();
    if (!fits(offset, length, size))
        fail(ctx, str(what, " [", offset, ", +", length, ") lies outside the strings section (",
                      size, " bytes)"));
}

void check_box(const Context& ctx, const std::string& what, const std::array<float, 3>& lo,
               const std::array<float, 3>& hi) {
    for (std::size_t axis = 0; axis < 3; ++axis) {
        if (!std::isfinite(lo[axis]) || !std::isfinite(hi[axis]))
            fail(ctx, str(what, " are not finite on axis ", "xyz"[axis], ": [", lo[axis], ", ",
                          hi[axis], "]"));
        if (lo[axis] > hi[axis])
            fail(ctx,
                 str(what, " have min ", lo[axis], " > max ", hi[axis], " on axis ", "xyz"[axis]));
    }
}

void check_info(const Context& ctx, const Validated& v) {
    const InfoRecord& info = v.info;
    check_count(ctx, info.vertex_count, as_array<Vertex>(v.section(SectionKind::Vertices)).size(),
                SectionKind::Vertices);
    check_count(ctx, info.index_count,
                as_array<std::uint32_t>(v.section(SectionKind::Indices)).size(),
                SectionKind::Indices);
    check_count(ctx, info.chunk_count, as_array<MeshChunk>(v.section(SectionKind::Chunks)).size(),
                SectionKind::Chunks);
    check_count(ctx, info.material_count,
                as_array<Material>(v.section(SectionKind::Materials)).size(),
                SectionKind::Materials);
    check_count(ctx, info.texture_count,
                v.section(SectionKind::TextureTable).size() / sizeof(TextureRecord),
                SectionKind::TextureTable);
    if (info.up_axis != kUpAxisY)
        fail(ctx, str("unsupported up axis ", info.up_axis, " (expected ", kUpAxisY, " = +y)"));
    if (info.metres_per_unit != 1.0f)
        fail(ctx,
             str("unsupported scale of ", info.metres_per_unit, " metres per unit (expected 1)"));
    if (info.reserved != 0) fail(ctx, "info reserved field is not zero");
    check_box(ctx, "scene bounds", info.bounds_min, info.bounds_max);
    check_string(ctx, v, info.source_offset, info.source_length, "source name");
}

void check_vertices(const Context& ctx, std::span<const Vertex> vertices) {
    static constexpr std::array<const char*, 3> kParts{"position", "normal", "uv"};
    for (std::size_t i = 0; i < vertices.size(); ++i) {
        const Vertex& p = vertices[i];
        const std::array<float, 8> values{p.px, p.py, p.pz, p.nx, p.ny, p.nz, p.u, p.v};
        for (std::size_t k = 0; k < values.size(); ++k) {
            if (!std::isfinite(values[k]))
                fail(ctx,
                     str("vertex ", i, " has a non-finite ", kParts[k / 3], " (", values[k], ")"));
        }
    }
}

void check_indices(const Context& ctx, std::span<const std::uint32_t> indices,
                   std::size_t vertex_count) {
    if (indices.empty()) fail(ctx, "scene has no triangles (index count 0)");
    if (indices.size() % 3 != 0)
        fail(ctx, str("index count ", indices.size(), " is not a multiple of 3"));
    for (std::size_t i = 0; i < indices.size(); ++i) {
        if (indices[i] >= vertex_count)
            fail(ctx, str("index ", indices[i], " out of range for ", vertex_count,
                          " vertices (at position ", i, ")"));
    }
}

// The chunks' index ranges must tile [0, index_count) exactly, in any order.
void check_chunk_coverage(const Context& ctx, std::span<const MeshChunk> chunks,
                          std::size_t index_count) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // [begin, end)
    ranges.reserve(chunks.size());
    for (const MeshChunk& c : chunks) {
        if (c.index_count != 0)
            ranges.emplace_back(c.first_index, std::uint64_t{c.first_index} + c.index_count);
    }
    std::sort(ranges.begin(), ranges.end());
    std::uint64_t covered = 0;
    for (const auto& [begin, end] : ranges) {
        if (begin < covered) fail(ctx, str("chunks overlap at index ", begin));
        if (begin > covered)
            fail(ctx, str("chunks leave indices [", covered, ", ", begin, ") uncovered"));
        covered = end;
    }
    if (covered != index_count)
        fail(ctx, str("chunks leave indices [", covered, ", ", index_count, ") uncovered"));
}

void check_chunks(const Context& ctx, std::span<const MeshChunk> chunks, std::size_t index_count,
                  std::size_t material_count) {
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        const MeshChunk& c = chunks[i];
        const std::uint64_t end = std::uint64_t{c.first_index} + c.index_count;
        if (end > index_count)
            fail(ctx, str("chunk ", i, " indices [", c.first_index, ", ", end,
                          ") exceed index count ", index_count));
        if (c.first_index % 3 != 0 || c.index_count % 3 != 0)
            fail(ctx, str("chunk ", i, " indices [", c.first_index, ", ", end,
                          ") are not whole triangles"));
        if (c.material >= material_count)
            fail(ctx, str("chunk ", i, ": chunk material ", c.material, " >= ", material_count,
                          " materials"));
        check_box(ctx, str("chunk ", i, " bounds"), {c.min_x, c.min_y, c.min_z},
                  {c.max_x, c.max_y, c.max_z});
    }
    check_chunk_coverage(ctx, chunks, index_count);
}

void check_materials(const Context& ctx, std::span<const Material> materials,
                     std::size_t texture_count) {
    for (std::size_t i = 0; i < materials.size(); ++i) {
        const Material& m = materials[i];
        for (const float value : {m.base_r, m.base_g, m.base_b, m.base_a}) {
            if (!std::isfinite(value))
                fail(ctx, str("material ", i, " has a non-finite base colour (", value, ")"));
        }
        if (m.base_color_texture != gpu::kNoTexture && m.base_color_texture >= texture_count)
            fail(ctx, str("material ", i, ": material texture ", m.base_color_texture,
                          " >= ", texture_count, " textures"));
    }
}

void check_texture_shape(const Context& ctx, std::size_t i, const TextureRecord& r) {
    if (r.width < 1 || r.width > kMaxTextureExtent || r.height < 1 || r.height > kMaxTextureExtent)
        fail(ctx, str("texture ", i, " is ", r.width, "x", r.height, ", expected 1 to ",
                      kMaxTextureExtent, " texels a side"));
    const auto max_mips = static_cast<std::uint32_t>(std::bit_width(std::max(r.width, r.height)));
    if (r.mip_count < 1 || r.mip_count > max_mips)
        fail(ctx, str("texture ", i, " has ", r.mip_count, " mips, expected 1 to ", max_mips,
                      " for ", r.width, "x", r.height));
    const auto format = static_cast<TextureFormat>(r.format);
    if (format != TextureFormat::Rgba8Srgb && format != TextureFormat::Bc1Srgb)
        fail(ctx, str("texture ", i, " has format ", r.format, ", expected 0 (RGBA8) or 1 (BC1)"));
    const std::size_t expected = mip_chain_bytes(r.width, r.height, r.mip_count, format);
    if (r.pixel_size != expected)
        fail(ctx,
             str("texture ", i, " (", r.width, "x", r.height, ", ", r.mip_count, " mips, ",
                 format_name(format), ") has ", r.pixel_size, " pixel bytes, expected ", expected));
}

void check_textures(const Context& ctx, const Validated& v) {
    const auto table = v.section(SectionKind::TextureTable);
    const std::size_t pixel_bytes = v.section(SectionKind::TexturePixels).size();
    std::uint64_t free_from = 0;  // textures are stored in order, without overlap
    std::vector<TextureSize> sizes;
    for (std::size_t i = 0; i < table.size() / sizeof(TextureRecord); ++i) {
        const auto r = record<TextureRecord>(table, i);
        check_texture_shape(ctx, i, r);
        sizes.push_back({r.width, r.height, r.mip_count, static_cast<TextureFormat>(r.format)});
        check_string(ctx, v, r.name_offset, r.name_length, str("texture ", i, " name"));
        if (r.pixel_offset % kAlignment != 0 || r.pixel_offset < free_from)
            fail(ctx, str("texture ", i, " pixel offset ", r.pixel_offset, " is not ", kAlignment,
                          "-byte aligned at or after ", free_from));
        if (!fits(r.pixel_offset, r.pixel_size, pixel_bytes))
            fail(ctx, str("texture ", i, " pixels [", r.pixel_offset, ", +", r.pixel_size,
                          ") extend past the texture pixels section (", pixel_bytes, " bytes)"));
        free_from = r.pixel_offset + r.pixel_size;
    }
    // Files packed before texture groups may have more sizes than the renderers hold.
    if (const std::size_t groups = group_textures(sizes).sizes.size(); groups > kMaxTextureGroups)
        fail(ctx, str("has ", groups, " texture groups (by size, mips and format, at most ",
                      kMaxGroupLayers, " each), renderers hold ", kMaxTextureGroups,
                      ": re-import the scene (importing resamples the rarest sizes)"));
}

}  // namespace

void check_contents(const Validated& v, std::string_view origin) {
    const Context ctx{origin};
    check_info(ctx, v);
    const auto vertices = as_array<Vertex>(v.section(SectionKind::Vertices));
    const auto indices = as_array<std::uint32_t>(v.section(SectionKind::Indices));
    const auto materials = as_array<Material>(v.section(SectionKind::Materials));
    check_vertices(ctx, vertices);
    check_indices(ctx, indices, vertices.size());
    check_chunks(ctx, as_array<MeshChunk>(v.section(SectionKind::Chunks)), indices.size(),
                 materials.size());
    check_materials(ctx, materials, v.info.texture_count);
    check_textures(ctx, v);
}

}  // namespace batchsim::assets::packed
