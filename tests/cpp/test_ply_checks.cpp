// The PLY header check before Assimp: element lines that Assimp 5.2.5 would turn into a huge
// allocation (a count beyond the file, digits where the name goes) are refused with the
// file and the line; real headers pass.
#include <catch2/catch.hpp>

#include <string>

#include "asset_test_utils.hpp"
#include "assets/ply_checks.hpp"
#include "core/check.hpp"

namespace {

using batchsim::assets::check_ply_header;

// The check's message for a PLY of `text`, or "(passed)".
std::string check_message(const std::string& text) {
    return batchsim::test::check_message(check_ply_header, "model.ply", text);
}

std::string ply(const std::string& elements) {
    return "ply\nformat ascii 1.0\n" + elements + "property float x\nend_header\n0\n1\n2\n";
}

}  // namespace

TEST_CASE("PLY element lines: counts within the file pass", "[ply_checks]") {
    CHECK(check_message(ply("element vertex 3\n")) == "(passed)");
    CHECK(check_message(ply("element vertex 0\r\n")) == "(passed)");
    CHECK(check_message(ply("element\tvertex   3  \n")) == "(passed)");
}

TEST_CASE("PLY element lines Assimp would over-allocate for are refused", "[ply_checks]") {
    // The fuzzer's input: digits where the name goes, which Assimp reads as the count.
    CHECK_THAT(check_message(ply("element 555555555555555555555face 6\n")),
               Catch::Contains("model.ply': PLY header line 'element 5555") &&
                   Catch::Contains("expected 'element NAME COUNT'"));
    CHECK_THAT(check_message(ply("element vertex 4000000000\n")),
               Catch::Contains("at most 81 elements"));
    CHECK_THAT(check_message(ply("element vertex 99999999999999999999999\n")),
               Catch::Contains("PLY header line"));
    CHECK_THAT(check_message(ply("element vertex\n")), Catch::Contains("PLY header line"));
    CHECK_THAT(check_message(ply("element vertex -3\n")), Catch::Contains("PLY header line"));
    // After end_header the body is data, not header lines.
    CHECK(check_message(ply("element vertex 3\n") + "element 5555 9\n") == "(passed)");
}
