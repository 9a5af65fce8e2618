// A check of PLY files before Assimp reads them: Assimp 5.2's PLY loader never returns on a
// header that has no end_header line (a truncated or mangled file), so `batchsim import`
// would hang instead of failing. Found by fuzz/fuzz_importer.cpp.
#pragma once

#include <cstddef>
#include <filesystem>

namespace batchsim::assets {

// Most bytes searched for end_header: real headers take a few hundred bytes, a few KB with
// many comments, so a longer one is not a PLY header anyone wrote.
inline constexpr std::size_t kMaxPlyHeaderBytes = std::size_t{1} << 20;

// True if the file is PLY by its extension (.ply, any case) or by its first bytes ("ply"),
// either of which makes Assimp pick its PLY loader.
bool is_ply(const std::filesystem::path& path);

// Throws Error(CorruptData) naming `path` unless an end_header line ends its header within
// kMaxPlyHeaderBytes and every element line before it names an element and counts at most
// as many as the file has bytes; Error(Io) if it cannot be read.
void check_ply_header(const std::filesystem::path& path);

}  // namespace batchsim::assets
