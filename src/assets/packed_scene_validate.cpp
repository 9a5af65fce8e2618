// Validation of packed scene files: everything is checked before anything is used, with
// overflow-free arithmetic, and every failure names the file and what was expected. This
// file checks the container (header, section table, the sections' bytes in the file) and
// runs the rest: deflated sections (packed_scene_deflate.cpp), then what the sections hold
// (packed_scene_validate_contents.cpp, packed_scene_validate_bvh.cpp).
#include <algorithm>
#include <cstring>
#include <ios>
#include <string>
#include <vector>

#include "assets/packed_scene_deflate.hpp"
#include "assets/packed_scene_format.hpp"
#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::assets::packed {

std::string hex(std::uint32_t value) {
    return str("0x", std::hex, value);
}

namespace {

struct Context {
    std::span<const std::uint8_t> file;
    ChecksumPolicy checksums;
    std::string_view origin;
    std::uint32_t version = 0;  // once the header is read
};

[[noreturn]] void fail(const Context& ctx, const std::string& what) {
    throw Error(Error::Kind::CorruptData, str("packed scene ", ctx.origin, ": ", what));
}

// The bytes as a quoted string; anything but printable ASCII as \xNN.
std::string quoted(std::span<const char> bytes) {
    std::string out = "'";
    for (const char c : bytes) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7f) {
            out += c;
        } else {
            out += str("\\x", std::hex, static_cast<unsigned>(byte) >> 4,
                       static_cast<unsigned>(byte) & 15u);
        }
    }
    return out + "'";
}

void check_header_fields(const Context& ctx, const Header& header) {
    if (header.magic != kMagic)
        fail(ctx, str("bad magic: expected 'BSSCENE', got ", quoted(header.magic)));
    if (header.version < kOldestReadableVersion || header.version > kVersion)
        fail(ctx, str("unsupported version ", header.version, " (this build reads versions ",
                      kOldestReadableVersion, " to ", kVersion, ")",
                      header.version < kVersion
                          ? ": re-import the scene (batchsim import) or rebuild procedural "
                            "scenes (batchsim procgen)"
                          : ": it was written by a newer batchsim"));
    if (ctx.checksums == ChecksumPolicy::Verify) {
        Header zeroed = header;
        zeroed.header_crc32 = 0;
        const std::uint32_t computed =
            crc32({reinterpret_cast<const std::uint8_t*>(&zeroed), sizeof(zeroed)});
        if (computed != header.header_crc32)
            fail(ctx, str("header checksum mismatch: stored ", hex(header.header_crc32),
                          ", computed ", hex(computed)));
    }
    if (header.file_size != ctx.file.size())
        fail(ctx, str("file is ", ctx.file.size(), " bytes but header says ", header.file_size,
                      header.file_size > ctx.file.size() ? " (truncated?)" : " (trailing bytes?)"));
    if (std::any_of(header.reserved.begin(), header.reserved.end(), [](auto b) { return b; }) ||
        (header.version < kDeflateVersion && header.loaded_size != 0))
        fail(ctx, "header reserved bytes are not zero");
    if (header.section_count == 0 || header.section_count > kKindCount)
        fail(ctx,
             str("section count ", header.section_count, " out of range [1, ", kKindCount, "]"));
}

Header read_header(Context& ctx) {
    if (ctx.file.size() < sizeof(Header))
        fail(ctx, str("file is ", ctx.file.size(), " bytes, smaller than the ", sizeof(Header),
                      "-byte header (truncated?)"));
    const auto header = record<Header>(ctx.file, 0);
    check_header_fields(ctx, header);
    ctx.version = header.version;
    return header;
}

std::vector<SectionEntry> read_table(const Context& ctx, const Header& header) {
    const std::uint64_t table_bytes = std::uint64_t{header.section_count} * sizeof(SectionEntry);
    if (!fits(sizeof(Header), table_bytes, ctx.file.size()))
        fail(ctx, str("section table of ", header.section_count, " entries ends past the end of ",
                      "the file (", ctx.file.size(), " bytes)"));
    const auto table = ctx.file.subspan(sizeof(Header), table_bytes);
    if (ctx.checksums == ChecksumPolicy::Verify && crc32(table) != header.table_crc32)
        fail(ctx, str("section table checksum mismatch: stored ", hex(header.table_crc32),
                      ", computed ", hex(crc32(table))));
    std::vector<SectionEntry> entries(header.section_count);
    for (std::size_t i = 0; i < entries.size(); ++i) entries[i] = record<SectionEntry>(table, i);
    return entries;
}

// Checks one entry's fields; returns its bytes.
std::span<const std::uint8_t> check_entry(const Context& ctx, const SectionEntry& entry,
                                          std::uint64_t table_end) {
    const auto kind = static_cast<SectionKind>(entry.kind);
    const std::string name = str("section '", section_name(kind), "'");
    const std::uint32_t known_flags = ctx.version >= kDeflateVersion ? kSectionDeflated : 0;
    if ((entry.flags & ~known_flags) != 0)
        fail(ctx, str(name, " has flags ", hex(entry.flags), ", expected ",
                      known_flags != 0 ? "0 or 0x1 (deflated)" : "0 (before version 5)"));
    if (entry.element_size != element_size(kind))
        fail(ctx, str(name, " has element size ", entry.element_size, ", expected ",
                      element_size(kind)));
    // A deflated section's raw size is checked against its element size once it is read.
    if ((entry.flags & kSectionDeflated) == 0 && entry.size % entry.element_size != 0)
        fail(ctx, str(name, " size ", entry.size, " is not a multiple of its element size ",
                      entry.element_size));
    if (entry.offset % kAlignment != 0)
        fail(ctx, str(name, " offset ", entry.offset, " is not aligned to ", kAlignment, " bytes"));
    if (entry.offset < table_end)
        fail(ctx, str(name, " offset ", entry.offset,
                      " overlaps the header and section table, which end at ", table_end));
    if (!fits(entry.offset, entry.size, ctx.file.size()))
        fail(ctx, str(name, " [", entry.offset, ", +", entry.size, ") extends past the end of ",
                      "the file (", ctx.file.size(), " bytes)"));
    const auto bytes = ctx.file.subspan(entry.offset, entry.size);
    if (ctx.checksums == ChecksumPolicy::Verify && crc32(bytes) != entry.crc32)
        fail(ctx, str(name, " checksum mismatch: stored ", hex(entry.crc32), ", computed ",
                      hex(crc32(bytes))));
    return bytes;
}

void check_zero(const Context& ctx, std::uint64_t begin, std::uint64_t end) {
    for (std::uint64_t i = begin; i < end; ++i) {
        if (ctx.file[i] != 0)
            fail(ctx,
                 str("padding byte at offset ", i, " is ", unsigned{ctx.file[i]}, ", expected 0"));
    }
}

// Sections must not overlap, and everything between them must be zero padding, so that
// the checksums cover every byte that could change what is loaded.
void check_gaps(const Context& ctx, std::vector<SectionEntry> entries, std::uint64_t table_end) {
    std::erase_if(entries, [](const SectionEntry& e) { return e.size == 0; });
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& a, const auto& b) { return a.offset < b.offset; });
    std::uint64_t used_to = table_end;
    const SectionEntry* previous = nullptr;
    for (const SectionEntry& entry : entries) {
        if (entry.offset < used_to && previous != nullptr)
            fail(ctx,
                 str("sections '", section_name(static_cast<SectionKind>(previous->kind)),
                     "' and '", section_name(static_cast<SectionKind>(entry.kind)), "' overlap"));
        check_zero(ctx, used_to, entry.offset);
        used_to = entry.offset + entry.size;  // no overflow: check_entry bounded it by the file
        previous = &entry;
    }
    check_zero(ctx, used_to, ctx.file.size());
}

std::array<std::span<const std::uint8_t>, kKindCount> locate_sections(
    const Context& ctx, const std::vector<SectionEntry>& entries) {
    const std::uint64_t table_end = sizeof(Header) + entries.size() * sizeof(SectionEntry);
    std::array<std::span<const std::uint8_t>, kKindCount> sections{};
    std::array<bool, kKindCount> seen{};
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::uint32_t kind = entries[i].kind;
        if (kind < kFirstKind || kind > kLastKind)
            fail(ctx, str("section ", i, " has unknown kind ", kind, " (this build knows kinds ",
                          kFirstKind, "-", kLastKind, ")"));
        if (seen[kind - kFirstKind])
            fail(ctx,
                 str("duplicate section '", section_name(static_cast<SectionKind>(kind)), "'"));
        seen[kind - kFirstKind] = true;
        sections[kind - kFirstKind] = check_entry(ctx, entries[i], table_end);
    }
    for (std::uint32_t kind = kFirstKind; kind <= kLastKind; ++kind) {
        if (!seen[kind - kFirstKind] && static_cast<SectionKind>(kind) != SectionKind::NavMesh)
            fail(ctx, str("missing required section '",
                          section_name(static_cast<SectionKind>(kind)), "'"));
    }
    check_gaps(ctx, entries, table_end);
    return sections;
}

}  // namespace

Validated validate(std::span<const std::uint8_t> file, ChecksumPolicy checksums,
                   std::string_view origin) {
    Context ctx{file, checksums, origin};
    const Header header = read_header(ctx);
    const std::vector<SectionEntry> entries = read_table(ctx, header);
    Validated out{};
    out.sections = locate_sections(ctx, entries);
    if (header.version >= kDeflateVersion)
        out.loaded = load_sections(entries, header.loaded_size, out.sections, origin);
    const auto info = out.section(SectionKind::Info);
    if (info.size() != sizeof(InfoRecord))
        fail(ctx, str("section 'info' holds ", info.size() / sizeof(InfoRecord),
                      " records, expected 1"));
    out.info = record<InfoRecord>(info, 0);
    check_contents(out, origin);
    validate_bvh(out, origin);
    return out;
}

}  // namespace batchsim::assets::packed
