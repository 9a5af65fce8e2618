// Deflated sections of packed scene files: zlib in, zlib out, and the checks that keep a
// damaged or hostile file from making the reader allocate or write more than it declared.
#include "assets/packed_scene_deflate.hpp"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::assets::packed {
namespace {

// zlib counts bytes in 32 bits per call: larger buffers go through in pieces of this.
constexpr std::size_t kChunk = std::size_t{1} << 30;

[[noreturn]] void fail(std::string_view origin, const std::string& what) {
    throw Error(Error::Kind::CorruptData, str("packed scene ", origin, ": ", what));
}

std::string name_of(const SectionEntry& entry) {
    return str("section '", section_name(static_cast<SectionKind>(entry.kind)), "'");
}

uInt piece(std::size_t bytes) {
    return static_cast<uInt>(std::min(bytes, kChunk));
}

// Ends a z_stream however its owner leaves.
template <int (*End)(z_streamp)>
struct StreamGuard {
    z_stream* stream;
    ~StreamGuard() { End(stream); }
};

// The raw size a section's bytes in the file stand for: theirs, or a deflated section's
// declared size, checked against deflate's limit and the element size.
std::uint64_t raw_size(const SectionEntry& entry, std::span<const std::uint8_t> stored,
                       std::string_view origin) {
    if ((entry.flags & kSectionDeflated) == 0) return stored.size();
    if (stored.size() <= kDeflatePrefixBytes)
        fail(origin, str(name_of(entry), " is deflated but holds ", stored.size(),
                         " bytes, too few for its ", kDeflatePrefixBytes,
                         "-byte raw size and a zlib stream"));
    const auto raw = record<std::uint64_t>(stored, 0);
    // No overflow: the stream is in memory, far below 2^64 / 1032 bytes.
    const std::uint64_t stream = stored.size() - kDeflatePrefixBytes;
    if (raw > kMaxDeflateRatio * stream)
        fail(origin, str(name_of(entry), " declares ", raw, " raw bytes, more than its ", stream,
                         "-byte zlib stream can hold (deflate's limit is ", kMaxDeflateRatio,
                         ":1): refused as a decompression bomb"));
    if (raw % entry.element_size != 0)
        fail(origin, str(name_of(entry), " declares ", raw,
                         " raw bytes, not a multiple of its element size ", entry.element_size));
    return raw;
}

// Inflates `stream` into exactly `out`: the stream must end where `stream` ends, having
// produced out.size() bytes, no more and no fewer.
void inflate_exactly(std::span<const std::uint8_t> stream, std::span<std::uint8_t> out,
                     const std::string& name, std::string_view origin) {
    z_stream z{};
    BATCHSIM_CHECK(inflateInit(&z) == Z_OK, Internal, "zlib inflateInit failed (out of memory?)");
    const StreamGuard<inflateEnd> guard{&z};
    std::uint8_t spare = 0;  // room for one byte past `out`, to catch a stream that goes on
    int status = Z_OK;
    while (status == Z_OK) {
        const std::size_t in = z.total_in, produced = z.total_out;
        z.next_in = const_cast<Bytef*>(stream.data() + in);  // zlib's API is not const
        z.avail_in = piece(stream.size() - in);
        const bool full = produced >= out.size();
        z.next_out = full ? &spare : out.data() + produced;
        z.avail_out = full ? 1 : piece(out.size() - produced);
        status = inflate(&z, Z_NO_FLUSH);
        if (z.total_out > out.size())
            fail(origin, str(name, " inflates to more than its declared ", out.size(), " bytes"));
    }
    if (status == Z_BUF_ERROR)  // no progress with room to write: the input ran out
        fail(origin, str(name, "'s zlib stream ends early, after ", z.total_out, " of its ",
                         out.size(), " bytes (truncated?)"));
    if (status == Z_MEM_ERROR) throw Error(Error::Kind::Internal, "zlib inflate: out of memory");
    if (status == Z_NEED_DICT) fail(origin, str(name, "'s zlib stream needs a preset dictionary"));
    if (status != Z_STREAM_END)
        fail(origin, str(name, " does not inflate: ",
                         z.msg != nullptr ? std::string(z.msg) : str("zlib error ", status)));
    if (z.total_out != out.size())
        fail(origin, str(name, " inflates to ", z.total_out, " bytes, but declares ", out.size()));
    if (z.total_in != stream.size())
        fail(origin, str(name, " has ", stream.size() - z.total_in,
                         " bytes after the end of its zlib stream"));
}

}  // namespace

std::vector<std::uint8_t> deflate_section(std::span<const std::uint8_t> raw) {
    z_stream z{};
    BATCHSIM_CHECK(deflateInit(&z, kDeflateLevel) == Z_OK, Internal,
                   "zlib deflateInit failed (out of memory?)");
    const StreamGuard<deflateEnd> guard{&z};
    const auto prefix = std::bit_cast<std::array<std::uint8_t, kDeflatePrefixBytes>>(
        static_cast<std::uint64_t>(raw.size()));
    std::vector<std::uint8_t> out(prefix.begin(), prefix.end());
    out.resize(kDeflatePrefixBytes + deflateBound(&z, raw.size()));
    const std::span<std::uint8_t> stream = std::span{out}.subspan(kDeflatePrefixBytes);
    int status = Z_OK;
    while (status == Z_OK) {
        const std::size_t in = z.total_in;
        z.next_in = const_cast<Bytef*>(raw.data() + in);  // zlib's API is not const
        z.avail_in = piece(raw.size() - in);
        z.next_out = stream.data() + z.total_out;
        z.avail_out = piece(stream.size() - z.total_out);
        status = deflate(&z, raw.size() - in <= kChunk ? Z_FINISH : Z_NO_FLUSH);
    }
    BATCHSIM_CHECK(status == Z_STREAM_END, Internal, str("zlib deflate failed with ", status));
    out.resize(kDeflatePrefixBytes + z.total_out);
    return out;
}

std::vector<std::uint8_t> deflate_file(std::span<const std::uint8_t> plain) {
    auto header = record<Header>(plain, 0);
    std::vector<SectionEntry> entries(header.section_count);
    for (std::size_t i = 0; i < entries.size(); ++i)
        entries[i] = record<SectionEntry>(plain.subspan(sizeof(Header)), i);
    std::vector<std::vector<std::uint8_t>> stored(entries.size());
    std::uint64_t end = align_up(sizeof(Header) + entries.size() * sizeof(SectionEntry));
    header.loaded_size = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        SectionEntry& entry = entries[i];
        const auto raw = plain.subspan(entry.offset, entry.size);
        stored[i] = deflate_section(raw);
        entry.flags = align_up(stored[i].size()) < align_up(raw.size()) ? kSectionDeflated : 0;
        if (entry.flags == 0) stored[i].assign(raw.begin(), raw.end());
        header.loaded_size += align_up(raw.size());
        entry.offset = align_up(end);
        entry.size = stored[i].size();
        end = entry.offset + entry.size;
    }
    std::vector<std::uint8_t> out(end, 0);
    for (std::size_t i = 0; i < entries.size(); ++i) {
        std::copy(stored[i].begin(), stored[i].end(), out.data() + entries[i].offset);
        std::memcpy(out.data() + sizeof(Header) + i * sizeof(SectionEntry), &entries[i],
                    sizeof(SectionEntry));
    }
    header.version = kDeflateVersion;
    header.file_size = out.size();
    std::memcpy(out.data(), &header, sizeof(header));
    seal(out);
    return out;
}

AlignedBytes load_sections(std::span<const SectionEntry> entries, std::uint64_t loaded_size,
                           std::array<std::span<const std::uint8_t>, kKindCount>& sections,
                           std::string_view origin) {
    std::vector<std::uint64_t> raw(entries.size());
    std::uint64_t needed = 0;  // no overflow: at most 11 sections, each bounded as above
    for (std::size_t i = 0; i < entries.size(); ++i) {
        raw[i] = raw_size(entries[i], sections[entries[i].kind - kFirstKind], origin);
        needed += align_up(raw[i]);
    }
    if (needed != loaded_size)
        fail(origin, str("header says the sections load into ", loaded_size,
                         " bytes, but their raw sizes need ", needed));
    AlignedBytes loaded(needed);
    std::uint64_t offset = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        auto& section = sections[entries[i].kind - kFirstKind];
        const std::span<std::uint8_t> out{loaded.data() + offset, raw[i]};
        if ((entries[i].flags & kSectionDeflated) != 0)
            inflate_exactly(section.subspan(kDeflatePrefixBytes), out, name_of(entries[i]), origin);
        else if (!section.empty())
            std::memcpy(out.data(), section.data(), section.size());
        std::memset(out.data() + out.size(), 0, align_up(raw[i]) - raw[i]);  // padding
        section = out;
        offset += align_up(raw[i]);
    }
    return loaded;
}

}  // namespace batchsim::assets::packed
