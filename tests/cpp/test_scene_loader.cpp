#include "sim/scene_loader.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "asset_test_utils.hpp"
#include "assets/packed_scene.hpp"
#include "assets/packed_scene_writer.hpp"
#include "assets/textures.hpp"
#include "core/check.hpp"
#include "nav_scenes.hpp"

namespace fs = std::filesystem;
using batchsim::Error;
using batchsim::assets::SceneData;
using batchsim::sim::load_scene;
using batchsim::sim::LoaderConfig;
using batchsim::sim::SceneLoader;
using batchsim::test::ScratchDir;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// An 8 m x 8 m floor with its baked navmesh (baked once: Recast takes a while), optionally
// with a 1024x512 texture that makes the file ~2.8 MB.
SceneData floor_scene(bool big = false, bool with_navmesh = true) {
    // Spelled out, not test::floors(): GCC 12 warns falsely (stringop-overflow) on that inlined.
    static const batchsim::test::Mesh mesh{{0, 0, 0, 8, 0, 0, 8, 0, 8, 0, 0, 8},
                                           {0, 2, 1, 0, 3, 2}};
    static const std::vector<std::uint8_t> navmesh = batchsim::test::bake(mesh)->habitat_bytes();
    SceneData scene;
    for (std::size_t i = 0; i < mesh.positions.size(); i += 3)
        scene.vertices.push_back(
            {mesh.positions[i], mesh.positions[i + 1], mesh.positions[i + 2], 0, 1, 0, 0, 0});
    scene.indices = mesh.indices;
    scene.chunks = {{0, 0, 0, 0, 8, 0, 8, 6, 0, 0, 0, 0}};
    scene.materials = {{1, 1, 1, 1, big ? 0 : batchsim::gpu::kNoTexture, 0, 0, 0}};
    if (big) {
        scene.textures = {batchsim::assets::make_texture(
            "big.png", 1024, 512, std::vector<std::uint8_t>(std::size_t{1024} * 512 * 4, 0x80))};
    }
    if (with_navmesh) scene.navmesh = navmesh;
    scene.bounds = {{0, 0, 0}, {8, 0, 8}};
    scene.source = "floor.glb";
    return scene;
}

// The scene files every test uses, written once per test into a scratch folder.
struct Files {
    ScratchDir dir;
    fs::path scene = dir.path / "floor.bsscene";
    fs::path big = dir.path / "big.bsscene";
    fs::path navmesh = dir.path / "floor.navmesh";
    fs::path no_navmesh = dir.path / "render_only.bsscene";
    fs::path corrupt = dir.path / "corrupt.bsscene";
    fs::path corrupt_navmesh = dir.path / "corrupt.navmesh";
    fs::path missing = dir.path / "missing.bsscene";

    Files() {
        batchsim::assets::write_packed_scene(scene, floor_scene());
        batchsim::assets::write_packed_scene(big, floor_scene(true));
        batchsim::assets::write_packed_scene(no_navmesh, floor_scene(false, false));
        const std::vector<std::uint8_t> image = floor_scene().navmesh;
        dir.write(navmesh.filename(), std::string(image.begin(), image.end()));
        dir.write(corrupt.filename(), std::string(5000, 'x'));
        dir.write(corrupt_navmesh.filename(), "MSET and then nonsense");
    }
};

// Runs `action`, which must throw batchsim::Error of `kind` whose message contains `text`.
template <typename Action>
void check_error(Action action, Error::Kind kind, const std::string& text) {
    try {
        action();
        FAIL("no exception");
    } catch (const Error& error) {
        CHECK(error.kind() == kind);
        CHECK_THAT(error.what(), Catch::Contains(text));
    }
}

// The niceness of every thread of this process, from /proc.
std::vector<int> thread_nice_values() {
    std::vector<int> values;
    for (const auto& task : fs::directory_iterator("/proc/self/task")) {
        std::string stat;  // not read_file(): /proc files report a size of 0
        std::getline(std::ifstream(task.path() / "stat"), stat);
        std::istringstream fields(stat.substr(stat.rfind(')') + 2));
        std::string field;
        for (int i = 3; i <= 19 && fields >> field; ++i) {  // field 19 is the nice value
        }
        values.push_back(std::stoi(field));
    }
    return values;
}

}  // namespace

TEST_CASE("load_scene loads a packed scene and a bare navmesh", "[scene_loader]") {
    const Files files;
    const auto packed = load_scene(files.scene);
    CHECK(packed.path == files.scene);
    REQUIRE(packed.packed != nullptr);
    REQUIRE(packed.navmesh != nullptr);
    CHECK(packed.packed->indices().size() == 6);
    CHECK(packed.navmesh->habitat_bytes() == floor_scene().navmesh);
    CHECK(packed.bytes >= fs::file_size(files.scene) + floor_scene().navmesh.size());

    const auto bare = load_scene(files.navmesh);
    CHECK(bare.packed == nullptr);
    REQUIRE(bare.navmesh != nullptr);
    CHECK(bare.navmesh->polygon_count() == packed.navmesh->polygon_count());
    CHECK(bare.bytes >= fs::file_size(files.navmesh));
}

TEST_CASE("load_scene reports bad inputs with their kind", "[scene_loader]") {
    const Files files;
    using Kind = Error::Kind;
    check_error([&] { load_scene(files.missing); }, Kind::FileNotFound, "missing.bsscene");
    check_error([&] { load_scene(files.dir.path / "model.glb"); }, Kind::InvalidArgument,
                "expected a .bsscene or .navmesh file, got '.glb'");
    check_error([&] { load_scene(files.dir.path / "scene"); }, Kind::InvalidArgument,
                "got no extension");
    check_error([&] { load_scene(files.no_navmesh); }, Kind::CorruptData,
                "render_only.bsscene' has no navmesh; re-import it with `batchsim import`");
    check_error([&] { load_scene(files.corrupt); }, Kind::CorruptData,
                "packed scene '" + files.corrupt.string() + "': bad magic");
    check_error([&] { load_scene(files.corrupt_navmesh); }, Kind::CorruptData, "corrupt.navmesh");
    check_error([&] { load_scene(files.scene, -1); }, Kind::InvalidArgument, "rate");
}

TEST_CASE("load_scene keeps to its read rate", "[scene_loader]") {
    const Files files;
    const double size = double(fs::file_size(files.big));
    REQUIRE(size > 2e6);
    const double rate = 20e6;
    const Clock::time_point start = Clock::now();
    const auto scene = load_scene(files.big, rate);
    // Lower bound only: a loaded machine may take longer.
    CHECK(seconds_since(start) >= 0.95 * size / rate);
    CHECK(scene.packed->texture_count() == 1);
}

TEST_CASE("hurry lifts the read rate", "[scene_loader]") {
    const Files files;
    // At 1 KB/s this file would take most of an hour.
    std::atomic<bool> hurry{true};
    const Clock::time_point start = Clock::now();
    CHECK(load_scene(files.big, 1000, &hurry).packed != nullptr);
    CHECK(seconds_since(start) < 60);

    hurry = false;
    std::thread hurrier([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        hurry = true;
    });
    const Clock::time_point second = Clock::now();
    CHECK(load_scene(files.big, 1000, &hurry).packed != nullptr);
    hurrier.join();
    CHECK(seconds_since(second) >= 0.05);
    CHECK(seconds_since(second) < 60);
}

TEST_CASE("SceneLoader loads in the background", "[scene_loader]") {
    const Files files;
    SceneLoader loader;
    const auto scene = loader.request(files.scene);
    const auto navmesh = loader.request(files.navmesh);
    const auto loaded = loader.wait(navmesh);
    CHECK(loader.ready(scene));  // FIFO: queued first, so done first
    CHECK(loaded->packed == nullptr);
    CHECK(loader.wait(scene)->packed != nullptr);
    CHECK(loader.wait(scene) == loader.wait(scene));  // the same shared scene every time

    const auto stats = loader.stats();
    CHECK(stats.loads == 2);
    CHECK(stats.bytes_read == fs::file_size(files.scene) + fs::file_size(files.navmesh));
}

TEST_CASE("SceneLoader rethrows load errors from wait", "[scene_loader]") {
    const Files files;
    SceneLoader loader;
    const auto missing = loader.request(files.missing);
    const auto extension = loader.request(files.dir.path / "model.obj");
    const auto no_navmesh = loader.request(files.no_navmesh);
    const auto corrupt = loader.request(files.corrupt);
    const auto good = loader.request(files.scene);
    using Kind = Error::Kind;
    check_error([&] { loader.wait(missing); }, Kind::FileNotFound, "missing.bsscene");
    check_error([&] { loader.wait(extension); }, Kind::InvalidArgument, "model.obj");
    check_error([&] { loader.wait(no_navmesh); }, Kind::CorruptData, "has no navmesh");
    check_error([&] { loader.wait(corrupt); }, Kind::CorruptData, "corrupt.bsscene");
    check_error([&] { loader.wait(corrupt); }, Kind::CorruptData, "corrupt.bsscene");  // again
    CHECK(loader.wait(good)->navmesh != nullptr);  // the loader survives failures

    const auto stats = loader.stats();
    CHECK(stats.loads == 1);
    CHECK(stats.bytes_read == fs::file_size(files.no_navmesh) + fs::file_size(files.corrupt) +
                                  fs::file_size(files.scene));

    SceneLoader other;
    check_error([&] { other.wait(good); }, Kind::InvalidArgument, "another SceneLoader");
    check_error([&] { other.wait(nullptr); }, Kind::InvalidArgument, "null ticket");
}

TEST_CASE("SceneLoader waits hurry the request and those before it, in order", "[scene_loader]") {
    const Files files;
    SceneLoader loader(LoaderConfig{1000, 10});  // 1 KB/s: nothing finishes unhurried
    const auto first = loader.request(files.big);
    const auto second = loader.request(files.navmesh);
    const auto third = loader.request(files.scene);
    CHECK_FALSE(loader.ready(first));
    CHECK_FALSE(loader.ready(second));
    const Clock::time_point start = Clock::now();
    CHECK(loader.wait(second)->navmesh != nullptr);
    CHECK(seconds_since(start) < 60);
    CHECK(loader.ready(first));
    CHECK(loader.wait(first)->packed->texture_count() == 1);
    // Not hurried: its first 4 KiB chunk alone waits 4 s at this rate.
    CHECK_FALSE(loader.ready(third));
    CHECK(loader.wait(third)->packed != nullptr);

    const auto stats = loader.stats();
    CHECK(stats.loads == 3);
    CHECK(stats.stalls == 2);  // second and third; first was ready by then
    CHECK(stats.stall_seconds > 0);
}

TEST_CASE("SceneLoader runs its thread at the configured niceness", "[scene_loader]") {
    const Files files;
    SceneLoader loader(LoaderConfig{0, 19});
    loader.wait(loader.request(files.navmesh));  // the thread has started and set it
    const auto nice = thread_nice_values();
    CHECK(std::find(nice.begin(), nice.end(), 19) != nice.end());
}

TEST_CASE("SceneLoader stops promptly with requests queued", "[scene_loader]") {
    const Files files;
    Clock::time_point start;
    SceneLoader::Ticket kept;  // a ticket that outlives its loader
    {
        SceneLoader loader(LoaderConfig{1000, 10});
        for (int i = 0; i < 5; ++i) loader.request(files.big);
        kept = loader.request(files.scene);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        start = Clock::now();
    }
    CHECK(seconds_since(start) < 10);  // unhurried, the queue would take hours
}
