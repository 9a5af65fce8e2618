// Whole-file reads and atomic writes. Writers never leave a partial file behind: data goes
// to a temporary name in the destination folder and is renamed over the target at the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace batchsim {

// The whole file. Throws Error(FileNotFound) if it does not exist, Error(Io) otherwise.
std::vector<std::uint8_t> read_file(const std::filesystem::path& path);

// Writes the concatenation of `parts` to `path` atomically (temp file + fsync + rename).
// Throws Error(Io) naming the path on failure; the target is then untouched.
void write_file_atomically(const std::filesystem::path& path,
                           std::span<const std::span<const std::uint8_t>> parts);

// Throws Error(FileNotFound) naming `what` ("model", "scene", ...) unless `path` is a file.
void require_file(const std::filesystem::path& path, const char* what);

}  // namespace batchsim
