#include <catch2/catch.hpp>

#include <cstring>

#include "nav/habitat_format.hpp"
#include "nav_scenes.hpp"

using namespace batchsim;

namespace {

// The Detour tile data of a baked room, and a check that one mutation is caught.
std::vector<std::uint8_t> room_tile() {
    const test::Mesh room = test::floors({{0, 0, 10, 10}, {0, 0, 3, 12}});
    const auto image = nav::bake_navmesh(room.positions, room.indices, {});
    const auto tile = nav::parse_habitat_navmesh(image).tiles.at(0).data;
    return {tile.begin(), tile.end()};
}

dtMeshHeader header_of(const std::vector<std::uint8_t>& tile) {
    dtMeshHeader h;
    std::memcpy(&h, tile.data(), sizeof(h));
    return h;
}

template <typename Mutate>
void expect_rejected(Mutate mutate, const char* reason) {
    auto tile = room_tile();
    dtMeshHeader h = header_of(tile);
    mutate(tile, h);
    CHECK_THROWS_WITH(nav::validate_tile_data(tile, 1 << 16), Catch::Contains(reason));
}

std::size_t polys_offset(const dtMeshHeader& h) {
    return ((sizeof(dtMeshHeader) + 3) & ~std::size_t{3}) + 12 * std::size_t(h.vertCount);
}

// Applies `edit` to the tile's first polygon.
template <typename Edit>
void edit_first_poly(std::vector<std::uint8_t>& tile, const dtMeshHeader& h, Edit edit) {
    dtPoly poly;
    std::memcpy(&poly, tile.data() + polys_offset(h), sizeof(poly));
    edit(poly);
    std::memcpy(tile.data() + polys_offset(h), &poly, sizeof(poly));
}

}  // namespace

TEST_CASE("a baked tile passes validation", "[tile_validation]") {
    const auto tile = room_tile();
    CHECK_NOTHROW(nav::validate_tile_data(tile, 1 << 16));
    CHECK(header_of(tile).polyCount > 1);
    CHECK(header_of(tile).bvNodeCount > 0);
}

TEST_CASE("corrupted tile fields are caught before Detour reads them", "[tile_validation]") {
    auto set_header = [](std::vector<std::uint8_t>& tile, const dtMeshHeader& h) {
        std::memcpy(tile.data(), &h, sizeof(h));
    };
    expect_rejected([&](auto& t, auto h) { h.version = 6, set_header(t, h); }, "magic/version");
    expect_rejected([&](auto& t, auto h) { h.polyCount = -1, set_header(t, h); }, "invalid counts");
    expect_rejected([&](auto& t, auto h) { h.detailMeshCount += 1, set_header(t, h); },
                    "invalid counts");
    expect_rejected([&](auto& t, auto h) { h.vertCount += 1000, set_header(t, h); }, "truncated");
    expect_rejected([&](auto& t, auto h) { h.offMeshConCount = 1, set_header(t, h); }, "off-mesh");
    expect_rejected([&](auto& t, auto h) { h.bmin[1] = INFINITY, set_header(t, h); }, "not finite");
    expect_rejected([&](auto& t, auto h) { h.bvQuantFactor = 1e9f, set_header(t, h); },
                    "quantisation");
    expect_rejected(
        [&](auto& t, auto h) {
            edit_first_poly(t, h, [&](dtPoly& poly) {
                poly.verts[1] = static_cast<unsigned short>(h.vertCount);
            });
        },
        "uses vertex");
    expect_rejected(
        [&](auto& t, auto h) {
            edit_first_poly(t, h, [&](dtPoly& poly) {
                poly.neis[0] = static_cast<unsigned short>(h.polyCount + 1);
            });
        },
        "has neighbour");
    expect_rejected(
        [&](auto& t, auto h) { edit_first_poly(t, h, [&](dtPoly& poly) { poly.vertCount = 7; }); },
        "vertex count");
    expect_rejected(
        [&](auto& t, auto h) {
            const float nan = NAN;
            std::memcpy(t.data() + ((sizeof(dtMeshHeader) + 3) & ~std::size_t{3}), &nan, 4);
            (void)h;
        },
        "vertex coordinate");
}
