// File descriptors, whole-file and chunked reads, atomic writes. Writers never leave a
// partial file behind: data goes to a temporary name in the destination folder and is
// renamed over the target at the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <utility>
#include <vector>

namespace batchsim {

// Owns a file descriptor and closes it on scope exit (-1: none).
class FdGuard {
public:
    FdGuard() = default;
    explicit FdGuard(int fd) : fd_(fd) {}
    ~FdGuard();
    FdGuard(FdGuard&& other) noexcept : fd_(other.release()) {}
    FdGuard& operator=(FdGuard&& other) noexcept;
    FdGuard(const FdGuard&) = delete;
    FdGuard& operator=(const FdGuard&) = delete;

    [[nodiscard]] int get() const { return fd_; }
    // Stops owning the descriptor (to close it and check the result) and returns it.
    int release() { return std::exchange(fd_, -1); }

private:
    int fd_ = -1;
};

// A file opened for reading and its size when opened.
struct OpenFile {
    FdGuard fd;
    std::size_t size = 0;
};

// Opens `path` read-only. Throws Error(Io) "cannot open '<path>': ..." or "cannot stat ...",
// and Error(InvalidArgument) naming `what` for anything but a regular file (a FIFO, a device,
// a directory), without blocking on it.
OpenFile open_for_reading(const std::filesystem::path& path, const char* what = "input");

// Called before each read() with the bytes read so far and the bytes still wanted; returns
// how many of those the read() asks for (1..wanted). It may sleep first (pacing) or throw
// to abandon the read.
using ChunkGate = std::function<std::size_t(std::size_t done, std::size_t wanted)>;

// Reads from `fd`'s current offset until `out` is full, in chunks the gate allows (without
// one, as few read() calls as the kernel allows). Returns the bytes read: fewer than
// out.size() only if the file ends first. Throws Error(Io) "cannot read '<path>': ...".
std::size_t read_chunked(int fd, std::span<std::uint8_t> out, const std::filesystem::path& path,
                         const ChunkGate& gate = {});

// The whole file (as much as it held when opened). Throws Error(FileNotFound) naming
// `what` ("input", "scene", ...) if it does not exist, Error(Io) otherwise.
std::vector<std::uint8_t> read_file(const std::filesystem::path& path, const char* what = "input",
                                    const ChunkGate& gate = {});

// Writes the concatenation of `parts` to `path` atomically (temp file + fsync + rename).
// Throws Error(Io) naming the path on failure; the target is then untouched.
void write_file_atomically(const std::filesystem::path& path,
                           std::span<const std::span<const std::uint8_t>> parts);

// Throws Error(FileNotFound) naming `what` ("model", "scene", ...) unless `path` exists, and
// Error(InvalidArgument) unless it is a regular file (pipes and devices block or never end).
void require_file(const std::filesystem::path& path, const char* what);

}  // namespace batchsim
