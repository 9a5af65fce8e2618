// Deflated sections of packed scene files (format version 5; the layout is in
// packed_scene.hpp): the writer turns a plain file into a deflated one, the reader loads a
// deflated file's sections into one aligned buffer. Internal to the reader, the writer and
// their tests.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "assets/packed_scene.hpp"
#include "assets/packed_scene_format.hpp"

namespace batchsim::assets::packed {

// The zlib level the writer deflates at. On a 25.6 MB procedural scene (2-core VM): level 1
// stores 5.6 MB in 0.16 s, 4 stores 4.8 MB in 0.22 s, 6 (zlib's default) 4.6 MB in 0.64 s,
// 9 4.6 MB in 3.1 s; inflating takes about 0.06 s at every level. 4 is where time stops
// buying bytes: level 1 stores 17 % more, level 6 saves 4 % for 0.4 s more per scene (half
// of what procgen spends on the rest of a building).
inline constexpr int kDeflateLevel = 4;

// A version 5 copy of `plain`, a valid file of version 3 or 4 (pack_scene's): the same
// sections in the same order, each deflated where that makes the file smaller, the header's
// loaded_size set and every checksum computed again.
std::vector<std::uint8_t> deflate_file(std::span<const std::uint8_t> plain);

// `raw` as a deflated section's stored bytes: its size (u64), then a zlib stream.
std::vector<std::uint8_t> deflate_section(std::span<const std::uint8_t> raw);

// Loads a version 5 file's sections: `sections` (by kind - 1) hold each entry's bytes in the
// file, which the caller validated (bounds, checksums, element sizes); afterwards they hold
// the raw bytes, each at a multiple of kAlignment in the returned buffer. Checks every
// declared raw size (deflate's limit, the element size, their sum against `loaded_size`)
// before allocating, and that each stream inflates to exactly its declared size; throws
// Error(CorruptData) "packed scene <origin>: section '<name>' ..." otherwise.
AlignedBytes load_sections(std::span<const SectionEntry> entries, std::uint64_t loaded_size,
                           std::array<std::span<const std::uint8_t>, kKindCount>& sections,
                           std::string_view origin);

}  // namespace batchsim::assets::packed
