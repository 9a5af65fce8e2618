#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "core/check.hpp"
#include "core/file_io.hpp"

using namespace batchsim;
namespace fs = std::filesystem;

namespace {

fs::path scratch_dir() {
    fs::path dir =
        fs::temp_directory_path() / ("batchsim_file_io_" + std::to_string(std::random_device{}()));
    fs::create_directories(dir);
    return dir;
}

Error::Kind kind_of(const auto& f) {
    try {
        f();
    } catch (const Error& error) {
        return error.kind();
    }
    FAIL("no error thrown");
    return Error::Kind::Internal;
}

}  // namespace

TEST_CASE("write_file_atomically writes all parts and leaves no temporary", "[file_io]") {
    const fs::path dir = scratch_dir();
    const std::vector<std::uint8_t> a{1, 2, 3}, b{4, 5};
    const std::span<const std::uint8_t> parts[] = {a, b};
    write_file_atomically(dir / "out.bin", parts);
    CHECK(read_file(dir / "out.bin") == std::vector<std::uint8_t>{1, 2, 3, 4, 5});
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
    // Overwriting replaces the whole file.
    const std::span<const std::uint8_t> shorter[] = {b};
    write_file_atomically(dir / "out.bin", shorter);
    CHECK(read_file(dir / "out.bin") == b);
    fs::remove_all(dir);
}

TEST_CASE("file errors name the path and have the right kind", "[file_io]") {
    const fs::path dir = scratch_dir();
    CHECK(kind_of([&] { read_file(dir / "missing"); }) == Error::Kind::FileNotFound);
    // A directory, a named pipe (whose open() would block) and a device: not regular files.
    ::mkfifo((dir / "pipe").c_str(), 0600);
    for (const fs::path& special : {dir, dir / "pipe", fs::path("/dev/zero")}) {
        CHECK(kind_of([&] { read_file(special); }) == Error::Kind::InvalidArgument);
        CHECK(kind_of([&] { open_for_reading(special); }) == Error::Kind::InvalidArgument);
    }
    CHECK_THROWS_WITH(read_file(dir / "pipe", "scene"),
                      Catch::Contains("scene '" + (dir / "pipe").string() +
                                      "' is a named pipe (FIFO); expected a regular file"));
    fs::remove(dir / "pipe");
    const std::vector<std::uint8_t> bytes{1};
    const std::span<const std::uint8_t> parts[] = {bytes};
    CHECK(kind_of([&] { write_file_atomically(dir / "no/such/dir/out", parts); }) ==
          Error::Kind::Io);
    CHECK_THROWS_WITH(write_file_atomically(dir / "no/out", parts), Catch::Contains("no/out"));
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 0);
    fs::remove_all(dir);
}

TEST_CASE("read_chunked reads in the chunks its gate allows", "[file_io]") {
    const fs::path dir = scratch_dir();
    std::vector<std::uint8_t> data(1000);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7);
    const std::span<const std::uint8_t> parts[] = {data};
    write_file_atomically(dir / "data.bin", parts);
    std::vector<std::size_t> asked;
    const auto gate = [&](std::size_t done, std::size_t wanted) {
        CHECK(done + wanted == data.size());
        asked.push_back(std::min<std::size_t>(wanted, 300));
        return asked.back();
    };
    CHECK(read_file(dir / "data.bin", "input", gate) == data);
    CHECK(asked == std::vector<std::size_t>{300, 300, 300, 100});
    // A file shorter than the buffer: the bytes it holds, no error.
    const OpenFile file = open_for_reading(dir / "data.bin");
    std::vector<std::uint8_t> longer(file.size + 10);
    CHECK(read_chunked(file.fd.get(), longer, dir / "data.bin") == data.size());
    CHECK_THROWS_WITH(open_for_reading(dir / "missing"), Catch::Contains("cannot open"));
    fs::remove_all(dir);
}
