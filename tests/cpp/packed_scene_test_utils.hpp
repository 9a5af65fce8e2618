// Helpers shared by the packed scene tests: find and edit sections of a packed file in
// memory, and expect CorruptData with a given message.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "assets/packed_scene.hpp"
#include "assets/packed_scene_format.hpp"
#include "core/check.hpp"

namespace batchsim::test {

// Index and contents of the table entry of `kind`.
inline std::pair<std::size_t, assets::packed::SectionEntry> find_entry(
    const std::vector<std::uint8_t>& file, assets::packed::SectionKind kind) {
    assets::packed::Header header;
    std::memcpy(&header, file.data(), sizeof(header));
    for (std::size_t i = 0; i < header.section_count; ++i) {
        assets::packed::SectionEntry entry;
        std::memcpy(&entry, file.data() + 64 + i * 32, sizeof(entry));
        if (entry.kind == static_cast<std::uint32_t>(kind)) return {i, entry};
    }
    FAIL("no section of kind " << static_cast<int>(kind));
    return {};
}

inline void set_entry(std::vector<std::uint8_t>& file, std::size_t index,
                      const assets::packed::SectionEntry& entry) {
    std::memcpy(file.data() + 64 + index * 32, &entry, sizeof(entry));
}

// Overwrites element `i` of the section of `kind`, seen as an array of T, through `edit`.
template <typename T, typename Edit>
void edit_element(std::vector<std::uint8_t>& file, assets::packed::SectionKind kind, std::size_t i,
                  Edit edit) {
    const auto entry = find_entry(file, kind).second;
    T value;
    std::memcpy(&value, file.data() + entry.offset + i * sizeof(T), sizeof(T));
    edit(value);
    std::memcpy(file.data() + entry.offset + i * sizeof(T), &value, sizeof(T));
}

template <typename T, typename Edit>
std::vector<std::uint8_t> with(std::vector<std::uint8_t> file, assets::packed::SectionKind kind,
                               std::size_t i, Edit edit) {
    edit_element<T>(file, kind, i, edit);
    return file;
}

// The elements of the section of `kind`, copied out as T.
template <typename T>
std::vector<T> elements(const std::vector<std::uint8_t>& file, assets::packed::SectionKind kind) {
    const auto entry = find_entry(file, kind).second;
    std::vector<T> out(entry.size / sizeof(T));
    std::memcpy(out.data(), file.data() + entry.offset, out.size() * sizeof(T));
    return out;
}

inline void require_corrupt(std::span<const std::uint8_t> file, const std::string& needle,
                            assets::ChecksumPolicy policy = assets::ChecksumPolicy::Verify) {
    try {
        (void)assets::PackedScene::from_bytes(file, policy);
        FAIL("loaded, expected CorruptData containing: " << needle);
    } catch (const Error& error) {
        CHECK(error.kind() == Error::Kind::CorruptData);
        CHECK_THAT(error.what(), Catch::Contains(needle));
    }
}

// A structural corruption must be caught behind valid checksums and without checksums.
inline void require_structural(std::vector<std::uint8_t> file, const std::string& needle) {
    require_corrupt(file, needle, assets::ChecksumPolicy::Skip);
    assets::packed::seal(file);
    require_corrupt(file, needle, assets::ChecksumPolicy::Verify);
}

}  // namespace batchsim::test
