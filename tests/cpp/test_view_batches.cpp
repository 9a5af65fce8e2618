#include "render/view_batches.hpp"

#include <catch2/catch.hpp>

#include "core/check.hpp"

using namespace batchsim;
using render::AtlasLayout;
using render::split_views;
using render::tiles_area;

namespace {

// 10 views of 8 x 6 pixels in rows of 4 tiles.
AtlasLayout ten_views() {
    return {.tiles_x = 4,
            .tiles_y = 3,
            .tile_width = 8,
            .tile_height = 6,
            .width = 32,
            .height = 18,
            .views = 10};
}

}  // namespace

TEST_CASE("split_views: contiguous ranges of nearly equal size", "[view_batches]") {
    const auto batches = split_views(10, 3);
    REQUIRE(batches.size() == 3);
    CHECK(batches[0].first_view == 0);
    CHECK(batches[0].view_count == 4);
    CHECK(batches[1].first_view == 4);
    CHECK(batches[1].view_count == 3);
    CHECK(batches[2].first_view == 7);
    CHECK(batches[2].view_count == 3);
}

TEST_CASE("tiles_area: each batch's area covers its tiles", "[view_batches]") {
    const auto whole = tiles_area(ten_views(), split_views(10, 1)[0]);
    CHECK(whole.offset.x == 0);
    CHECK(whole.offset.y == 0);
    CHECK(whole.extent.width == 32);
    CHECK(whole.extent.height == 18);

    const auto naive = tiles_area(ten_views(), split_views(10, 10)[6]);
    // View 6 is tile (2, 1): exactly that tile.
    CHECK(naive.offset.x == 16);
    CHECK(naive.offset.y == 6);
    CHECK(naive.extent.width == 8);
    CHECK(naive.extent.height == 6);

    // Views 4..6 share row 1: three tiles of it. Views 7..9 span rows 1 and 2: whole rows.
    const auto thirds = split_views(10, 3);
    CHECK(tiles_area(ten_views(), thirds[1]).offset.x == 0);
    CHECK(tiles_area(ten_views(), thirds[1]).extent.width == 24);
    CHECK(tiles_area(ten_views(), thirds[2]).offset.y == 6);
    CHECK(tiles_area(ten_views(), thirds[2]).extent.width == 32);
    CHECK(tiles_area(ten_views(), thirds[2]).extent.height == 12);
}

TEST_CASE("split_views: batch counts outside 1..views are rejected", "[view_batches]") {
    CHECK_THROWS_WITH(split_views(10, 0), Catch::Contains("within 1..10"));
    CHECK_THROWS_WITH(split_views(10, 11), Catch::Contains("got 11"));
}
