// SnapCache: findNearestPoly's answers for points asked again, by their bits. Internal to
// src/nav; one per NavQuery, so per navmesh and per thread.
//
// Why: every episode start snaps its goal and its start point afresh, and a batch starts the
// same episodes over and over (a random agent starts a quarter of the batch each step);
// findNearestPoly tests every polygon in Habitat's 4 x 8 x 4 m box. The same point on the
// same navmesh always gets the same answer, so a hit is exact.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "nav/navmesh.hpp"

namespace batchsim::nav {

class SnapCache {
public:
    struct Entry {
        Vec3 point{};           // as asked
        Vec3 snapped{};         // findNearestPoly's point
        std::uint32_t ref = 0;  // its polygon; 0: empty
    };

    // The remembered answer for exactly this point, or null.
    [[nodiscard]] const Entry* find(const Vec3& point) const {
        if (entries_.empty()) return nullptr;
        const Entry& entry = entries_[slot(point)];
        return entry.ref != 0 && same_bits(entry.point, point) ? &entry : nullptr;
    }
    // Remembers an answer (off-mesh answers, ref 0, are not kept), evicting what shared its slot.
    void store(const Vec3& point, const Vec3& snapped, std::uint32_t ref) {
        if (ref == 0) return;
        if (entries_.empty()) entries_.resize(kEntries);  // on first use: 112 KiB
        entries_[slot(point)] = {point, snapped, ref};
    }

private:
    static constexpr std::size_t kEntries = 4096;  // direct-mapped, a power of two

    static std::size_t slot(const Vec3& p) {
        std::uint32_t h = std::bit_cast<std::uint32_t>(p[0]) * 0x9E3779B1u;
        h ^= std::bit_cast<std::uint32_t>(p[1]) * 0x85EBCA77u;
        h ^= std::bit_cast<std::uint32_t>(p[2]) * 0xC2B2AE3Du;
        return (h ^ (h >> 15)) & (kEntries - 1);
    }

    std::vector<Entry> entries_;
};

}  // namespace batchsim::nav
