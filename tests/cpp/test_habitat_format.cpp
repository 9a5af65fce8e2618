#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "core/check.hpp"
#include "nav/habitat_format.hpp"
#include "nav_scenes.hpp"

using namespace batchsim;

namespace {

std::vector<std::uint8_t> room_image() {
    const test::Mesh room = test::floors({{0, 0, 10, 10}});
    return nav::bake_navmesh(room.positions, room.indices, {});
}

template <typename T>
void poke(std::vector<std::uint8_t>& bytes, std::size_t offset, T value) {
    std::memcpy(bytes.data() + offset, &value, sizeof(T));
}

}  // namespace

TEST_CASE("the MSET header is habitat-sim's", "[habitat_format]") {
    const auto bytes = room_image();
    std::int32_t magic = 0, version = 0, tiles = 0;
    std::memcpy(&magic, bytes.data(), 4);
    std::memcpy(&version, bytes.data() + 4, 4);
    std::memcpy(&tiles, bytes.data() + 8, 4);
    CHECK(magic == 0x4D534554);  // 'MSET' as an int: the bytes "TESM" on disk
    CHECK(std::string(bytes.begin(), bytes.begin() + 4) == "TESM");
    CHECK(version == 2);
    CHECK(tiles == 1);
    // Re-serialising the parsed image reproduces the file byte for byte.
    CHECK(nav::write_habitat_navmesh(nav::parse_habitat_navmesh(bytes)) == bytes);
}

TEST_CASE("version 1 files (no settings block) load with default settings", "[habitat_format]") {
    auto bytes = room_image();
    bytes.erase(bytes.begin() + 40, bytes.begin() + 40 + 56);
    poke<std::int32_t>(bytes, 4, 1);
    const nav::NavMeshImage image = nav::parse_habitat_navmesh(bytes);
    CHECK(image.tiles.size() == 1);
    CHECK(image.settings.agent_radius == 0.1f);
}

TEST_CASE("a zero tile header ends the tile list, as in habitat-sim", "[habitat_format]") {
    auto bytes = room_image();
    poke<std::int32_t>(bytes, 8, 2);   // claims two tiles, the second header is zeros
    poke<std::int32_t>(bytes, 32, 2);  // params.maxTiles
    bytes.insert(bytes.end(), 8, 0);
    CHECK(nav::parse_habitat_navmesh(bytes).tiles.size() == 1);
}

TEST_CASE("corrupted .navmesh headers are rejected with a reason", "[habitat_format]") {
    const auto good = room_image();
    auto expect = [&](auto mutate, const char* reason) {
        auto bytes = good;
        mutate(bytes);
        CHECK_THROWS_WITH(nav::parse_habitat_navmesh(bytes), Catch::Contains(reason));
    };
    expect([](auto& b) { poke<std::int32_t>(b, 0, 0x12345678); }, "bad magic");
    expect([](auto& b) { poke<std::int32_t>(b, 4, 3); }, "unsupported .navmesh version 3");
    expect([](auto& b) { poke<std::int32_t>(b, 8, 0); }, "tile count 0");
    expect([](auto& b) { poke<std::int32_t>(b, 8, 1000); }, "tile count 1000");
    expect([](auto& b) { poke<float>(b, 12, NAN); }, "not finite");
    expect([](auto& b) { poke<float>(b, 24, 1e-30f); }, "tiles smaller than");  // tileWidth
    expect([](auto& b) { poke<std::int32_t>(b, 36, 1 << 30); }, "maxPolys");
    expect([](auto& b) { poke<float>(b, 40 + 4 * 10, 9.0f); }, "vertsPerPoly");
    expect([](auto& b) { poke<float>(b, 40, -1.0f); }, "cell_size");
    expect([](auto& b) { b.resize(b.size() - 1); }, "truncated");
    expect([](auto& b) { b.resize(30); }, "truncated");
    expect([](auto& b) { poke<std::int32_t>(b, 96 + 4, -5); }, "truncated");
}

TEST_CASE("random corruption of a .navmesh never crashes", "[habitat_format]") {
    const auto good = room_image();
    const unsigned seed = std::random_device{}();
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    for (int i = 0; i < 3000; ++i) {
        auto bytes = good;
        for (int flips = 0; flips < 1 + i % 4; ++flips)
            bytes[rng() % bytes.size()] = static_cast<std::uint8_t>(rng());
        if (i % 7 == 0) bytes.resize(rng() % bytes.size());
        try {
            (void)nav::NavMesh::from_habitat_bytes(bytes);
        } catch (const Error& error) {
            REQUIRE(error.kind() == Error::Kind::CorruptData);
        }
    }
}
