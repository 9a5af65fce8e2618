#include "core/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>
#include <random>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim {
namespace {

[[noreturn]] void throw_io(const char* action, const std::filesystem::path& path) {
    throw Error(Error::Kind::Io,
                str("cannot ", action, " '", path.string(), "': ", std::strerror(errno)));
}

void write_all(int fd, std::span<const std::uint8_t> bytes, const std::filesystem::path& path) {
    while (!bytes.empty()) {
        const ssize_t written = ::write(fd, bytes.data(), bytes.size());
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) throw_io("write", path);
        bytes = bytes.subspan(static_cast<std::size_t>(written));
    }
}

// What a file that is not a regular one is, for messages.
const char* file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "a special file";
}

// A pipe or device would block in open() or read() for ever, or never end: refused.
void check_regular(mode_t mode, const std::filesystem::path& path, const char* what) {
    BATCHSIM_CHECK(S_ISREG(mode), InvalidArgument,
                   str(what, " '", path.string(), "' is ", file_kind(mode),
                       "; expected a regular file (batchsim reads no pipes or devices)"));
}

std::filesystem::path temporary_sibling(const std::filesystem::path& path) {
    std::random_device entropy;
    return path.parent_path() /
           str(".", path.filename().string(), ".tmp", std::hex, entropy(), entropy());
}

}  // namespace

void require_file(const std::filesystem::path& path, const char* what) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
        BATCHSIM_CHECK(errno != ENOENT && errno != ENOTDIR, FileNotFound,
                       str(what, " file '", path.string(), "' does not exist"));
        throw_io("stat", path);
    }
    check_regular(info.st_mode, path, what);
}

FdGuard::~FdGuard() {
    if (fd_ >= 0) ::close(fd_);
}

FdGuard& FdGuard::operator=(FdGuard&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = other.release();
    }
    return *this;
}

OpenFile open_for_reading(const std::filesystem::path& path, const char* what) {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, for ever.
    OpenFile file{FdGuard(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC))};
    if (file.fd.get() < 0) throw_io("open", path);
    struct stat info {};
    if (::fstat(file.fd.get(), &info) != 0) throw_io("stat", path);
    check_regular(info.st_mode, path, what);
    const int flags = ::fcntl(file.fd.get(), F_GETFL);
    if (flags < 0 || ::fcntl(file.fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0)
        throw_io("open", path);
    file.size = static_cast<std::size_t>(info.st_size);
    return file;
}

std::size_t read_chunked(int fd, std::span<std::uint8_t> out, const std::filesystem::path& path,
                         const ChunkGate& gate) {
    std::size_t done = 0;
    while (done < out.size()) {
        const std::size_t wanted = out.size() - done;
        const std::size_t chunk = gate ? gate(done, wanted) : wanted;
        assert(chunk > 0 && chunk <= wanted);
        const ssize_t got = ::read(fd, out.data() + done, chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw_io("read", path);
        if (got == 0) break;  // the file shrank while we read it
        done += static_cast<std::size_t>(got);
    }
    return done;
}

std::vector<std::uint8_t> read_file(const std::filesystem::path& path, const char* what,
                                    const ChunkGate& gate) {
    require_file(path, what);
    const OpenFile file = open_for_reading(path, what);
    std::vector<std::uint8_t> bytes(file.size);
    bytes.resize(read_chunked(file.fd.get(), bytes, path, gate));
    return bytes;
}

void write_file_atomically(const std::filesystem::path& path,
                           std::span<const std::span<const std::uint8_t>> parts) {
    const std::filesystem::path temporary = temporary_sibling(path);
    FdGuard file(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (file.get() < 0) throw_io("create a temporary file to write", path);
    try {
        for (const auto part : parts) write_all(file.get(), part, temporary);
        if (::fsync(file.get()) != 0) throw_io("flush", temporary);
        if (::close(file.release()) != 0) throw_io("close", temporary);
        if (::rename(temporary.c_str(), path.c_str()) != 0) throw_io("rename onto", path);
    } catch (...) {
        ::unlink(temporary.c_str());
        throw;
    }
}

}  // namespace batchsim
