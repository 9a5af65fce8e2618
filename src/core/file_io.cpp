#include "core/file_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim {
namespace {

// Closes a file descriptor on scope exit.
struct FdGuard {
    int fd = -1;
    ~FdGuard() {
        if (fd >= 0) ::close(fd);
    }
};

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

std::filesystem::path temporary_sibling(const std::filesystem::path& path) {
    std::random_device entropy;
    return path.parent_path() /
           str(".", path.filename().string(), ".tmp", std::hex, entropy(), entropy());
}

}  // namespace

void require_file(const std::filesystem::path& path, const char* what) {
    std::error_code ignored;
    BATCHSIM_CHECK(std::filesystem::is_regular_file(path, ignored), FileNotFound,
                   str(what, " file '", path.string(), "' does not exist"));
}

std::vector<std::uint8_t> read_file(const std::filesystem::path& path) {
    require_file(path, "input");
    FdGuard file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (file.fd < 0) throw_io("open", path);
    std::vector<std::uint8_t> bytes(std::filesystem::file_size(path));
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t got = ::read(file.fd, bytes.data() + done, bytes.size() - done);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw_io("read", path);
        if (got == 0) break;  // the file shrank while we read it
        done += static_cast<std::size_t>(got);
    }
    bytes.resize(done);
    return bytes;
}

void write_file_atomically(const std::filesystem::path& path,
                           std::span<const std::span<const std::uint8_t>> parts) {
    const std::filesystem::path temporary = temporary_sibling(path);
    FdGuard file{::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)};
    if (file.fd < 0) throw_io("create a temporary file to write", path);
    try {
        for (const auto part : parts) write_all(file.fd, part, temporary);
        if (::fsync(file.fd) != 0) throw_io("flush", temporary);
        const int fd = file.fd;
        file.fd = -1;
        if (::close(fd) != 0) throw_io("close", temporary);
        if (::rename(temporary.c_str(), path.c_str()) != 0) throw_io("rename onto", path);
    } catch (...) {
        ::unlink(temporary.c_str());
        throw;
    }
}

}  // namespace batchsim
