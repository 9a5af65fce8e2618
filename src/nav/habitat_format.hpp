// habitat-sim's .navmesh file ("MSET"), read and written byte-compatibly, so that the
// navmeshes shipped with Gibson, MP3D and HM3D load as they are.
//
// Layout (native little-endian, 32-bit dtPolyRef as in habitat-sim's Detour build):
//   NavMeshSetHeader  { int32 magic = 'MSET'; int32 version (1 or 2); int32 numTiles;
//                       dtNavMeshParams params; }                       // 40 bytes
//   version 2 only:   NavMeshSettings { 13 float32; 4 bool }            // 56 bytes
//   numTiles times:   { uint32 tileRef; int32 dataSize; dataSize bytes of Detour tile data }
// A tile header with a zero ref or size ends the list early (habitat-sim does the same).
// Version 1 files (habitat-sim before 2023) carry no settings: the defaults apply.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <DetourNavMesh.h>

#include "nav/navmesh_bake.hpp"

namespace batchsim::nav {

inline constexpr std::int32_t kNavMeshSetMagic = 'M' << 24 | 'S' << 16 | 'E' << 8 | 'T';
inline constexpr std::int32_t kNavMeshSetVersion = 2;  // what we write; we read 1 and 2

// Largest coordinate magnitude a navmesh or a query point may have, in metres. Detour
// squares coordinates in float and converts them to int tile indices; beyond this its
// distances overflow to inf and its edge searches come back empty.
inline constexpr float kMaxNavCoordinate = 1e6f;

struct NavTileImage {
    dtTileRef ref = 0;
    std::span<const std::uint8_t> data;  // Detour tile data (dtMeshHeader first)
};

struct NavMeshImage {
    dtNavMeshParams params{};
    NavMeshSettings settings;         // what the mesh was baked with
    std::vector<NavTileImage> tiles;  // views into the parsed bytes
};

// Parses and validates a .navmesh image: header, tile list and every tile's Detour data
// (see validate_tile_data). Throws Error(CorruptData) saying what is wrong.
NavMeshImage parse_habitat_navmesh(std::span<const std::uint8_t> bytes);

std::vector<std::uint8_t> write_habitat_navmesh(const NavMeshImage& image);

// Checks that Detour can use a tile without reading out of bounds: counts against the
// data size, vertex/neighbour/detail/BV-tree indices in range, finite coordinates. Detour
// itself checks only the magic and version. `max_polys` is the navmesh's polygon limit.
void validate_tile_data(std::span<const std::uint8_t> data, int max_polys);

}  // namespace batchsim::nav
