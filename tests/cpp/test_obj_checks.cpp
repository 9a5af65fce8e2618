// The OBJ check before Assimp: elements Assimp 5.2.5 reads safely pass, a one-index line
// element (its heap overflow, assimp#4925) and indices naming nothing are refused with the
// file, the line and what was expected, and the check sees the statements Assimp sees.
#include <catch2/catch.hpp>

#include <assimp/Importer.hpp>

#include <string>

#include "asset_test_utils.hpp"
#include "assets/importer.hpp"
#include "assets/obj_checks.hpp"
#include "core/check.hpp"

namespace {

namespace fs = std::filesystem;
using batchsim::assets::check_obj_elements;
using batchsim::test::ScratchDir;

const std::string kTriangle = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";

// The check's message for an OBJ of `text`, or "(passed)".
std::string check_message(const std::string& text) {
    return batchsim::test::check_message(check_obj_elements, "model.obj", text);
}

bool passes(const std::string& text) {
    return check_message(text) == "(passed)";
}

}  // namespace

TEST_CASE("OBJ elements Assimp 5.2.5 reads safely pass the OBJ check", "[obj_checks]") {
    const fs::path models = batchsim::test::assimp_models();
    for (const char* name : {"OBJ/box.obj", "OBJ/spider.obj", "OBJ/testline.obj",
                             "OBJ/testmixed.obj", "OBJ/cube_with_vertexcolors.obj"}) {
        if (!fs::exists(models / name)) {
            WARN("skipped: " << models / name << " is absent (Debian package assimp-testmodels)");
            continue;
        }
        CHECK_NOTHROW(check_obj_elements(models / name));
    }
    CHECK(passes(kTriangle + "vt 0 0\nvn 0 0 1\nf 1/1/1 2/1/1 -1/-1/-1\nf 1//1 2//1 3//1\n"));
    CHECK(passes(kTriangle + "l 1 2\nl 1 2 3\np 1\np 1 2 3\nf 1 2 3\n"));
    CHECK(passes(kTriangle + "vn 0 0 1\nf 1/1 2/1 3/1\n"));  // no vt: "v/x" is v and normal x
    CHECK(passes(kTriangle + "lod\r\nf  1\t2 3   \r\n"));    // "lod" alone: an empty element
    CHECK(passes(kTriangle + "f 1 2 \\\n3\n"));              // continued on the next line
    CHECK(passes(kTriangle + "f 1 2 3"));                    // no newline at the end
}

TEST_CASE("a line element with one index is refused before Assimp writes past its vertices",
          "[obj_checks]") {
    // Assimp 5.2.5 writes 12 bytes after the 4-vertex array it made for these (valgrind).
    const std::string message = check_message(kTriangle + "l 1\nl 1\nl 1 2 3\n");
    CHECK_THAT(message, Catch::Contains("model.obj' line 4: line element 'l 1' has 1 vertex index; "
                                        "expected at least 2") &&
                            Catch::Contains("assimp#4925"));
    // Any statement starting with 'l' is a line element to Assimp.
    CHECK_THAT(check_message(kTriangle + "lod 1\n"),
               Catch::Contains("line 4: line element 'lod 1'"));
    // Lines end at \r, \0 and \f too; the message shows them as '?' and counts lines by \n.
    CHECK_THAT(check_message(kTriangle + "f 1 2 3\r\nl 2\r\n"), Catch::Contains("line 5"));
    CHECK_THAT(check_message(kTriangle + std::string("l 1\0 2\n", 7)), Catch::Contains("'l 1'"));
    // A continuation skips to the next '\n', then takes the byte there as text, a newline too:
    // Assimp reads "l 1 \\\n\n2 3" as "l 1 ", and "l 1 \\\r\n 2" as "l 1  2".
    CHECK_THAT(check_message(kTriangle + "l 1 \\\n\n2 3\n"), Catch::Contains("1 vertex index"));
    CHECK(passes(kTriangle + "l 1 \\\r\n 2\n"));
}

TEST_CASE("OBJ indices that name nothing are refused with the file, line and expected form",
          "[obj_checks]") {
    const std::string expected = "expected v, v/vt, v//vn or v/vt/vn with indices counted from 1";
    CHECK_THAT(check_message(kTriangle + "f 1 2 9\n"),
               Catch::Contains("model.obj' line 4: an element refers to vertex 9, but the file "
                               "defines 3 (v statements); " +
                               expected));
    CHECK_THAT(check_message(kTriangle + "vt 0 0\nf 1/1 2/2 3/1\n"),
               Catch::Contains("line 5: an element refers to texture coordinate 2, but the file "
                               "defines 1 (vt statements)"));
    CHECK_THAT(check_message(kTriangle + "vn 0 0 1\nf 1//1 2//1 3//4\n"),
               Catch::Contains("refers to normal 4, but the file defines 1 (vn statements)"));
    CHECK_THAT(check_message(kTriangle + "f -1 -2 -4\n"),
               Catch::Contains("line 4: element 'f -1 -2 -4': '-4': vertex -4 counts back past "
                               "the 3 defined before it"));
    CHECK_THAT(check_message(kTriangle + "f 0 1 2\n"),
               Catch::Contains("'0': index 0 (OBJ counts from 1)"));
    CHECK_THAT(check_message(kTriangle + "f 1 2 3x\n"),
               Catch::Contains("'3x': not an index; " + expected));
    CHECK_THAT(check_message(kTriangle + "f 1 2 03\n"), Catch::Contains("'03': not an index"));
    CHECK_THAT(check_message(kTriangle + "f 1/1/1/1 2 3\n"),
               Catch::Contains("more than 3 indices"));
    CHECK_THAT(check_message(kTriangle + "p /1\n"), Catch::Contains("'/1': no vertex index"));
    CHECK_THAT(check_message(kTriangle + "vn 0 0 1\nf 1/1/1 2 3\n"),
               Catch::Contains("'1/1/1': a texture coordinate, but none is defined before it"));
    CHECK_THAT(check_message(kTriangle + "f 1 2 3 \\"), Catch::Contains("ends in a '\\' line"));
    CHECK_THAT(check_message(kTriangle + "f 1 2 \\\r3\n"),
               Catch::Contains("line 4: the file ends"));
}

TEST_CASE("statements Assimp skips are not checked: cstype sections up to their end",
          "[obj_checks]") {
    CHECK(passes(kTriangle + "cstype bspline\nl 1\nparm u 0 1\nend\nf 1 2 3\n"));
    CHECK_THAT(check_message(kTriangle + "cstype bspline\nend\nl 1\n"),
               Catch::Contains("line 6: line element"));
    CHECK(passes(kTriangle + " l 1\n"));  // Assimp skips a line that starts with a blank
    CHECK(passes(kTriangle + "vp 1 2 3\nf 1 2 3\n"));
    // After a continuation's newline Assimp takes the next byte as text, a newline too, and
    // then stops reading the statement there: it never sees "l 4" (nor "f 1 2 9", checked).
    CHECK(passes(kTriangle + "f 1 2 3 \\\n\nl 4\n"));
}

TEST_CASE("the OBJ check runs on what Assimp reads as OBJ, whatever its name", "[obj_checks]") {
    const ScratchDir dir;
    const Assimp::Importer importer;
    using batchsim::assets::assimp_reads_as_obj;
    CHECK(assimp_reads_as_obj(importer, dir.write("a.obj", "not even OBJ")));
    CHECK(assimp_reads_as_obj(importer, dir.write("b.OBJ", kTriangle)));
    CHECK(assimp_reads_as_obj(importer, dir.write("c.model", kTriangle + "f 1 2 3\n")));
    CHECK_FALSE(assimp_reads_as_obj(importer, dir.write("d.ply", kTriangle)));
    CHECK_FALSE(assimp_reads_as_obj(importer, dir.write("e.model", "ply\nformat ascii 1.0\n")));
    // Through import_model, under either name.
    for (const char* name : {"bad.obj", "bad.model"}) {
        const fs::path bad = dir.write(name, kTriangle + "f 1 2 3\nl 1\nl 1\nl 1 2 3\n");
        CHECK_THROWS_WITH(batchsim::assets::import_model(bad, {}),
                          Catch::Contains(name) && Catch::Contains("line 5: line element"));
    }
}

TEST_CASE("a material library whose maps come before any newmtl is refused before Assimp crashes",
          "[obj_checks]") {
    const ScratchDir dir;
    const std::string obj = "mtllib a.mtl\n" + kTriangle + "f 1 2 3\n";
    const fs::path model = dir.write("model.obj", obj);
    dir.write("a.mtl", "# maps after their material\nnewmtl a\nmap_Kd x.png\na 1\n");
    CHECK_NOTHROW(check_obj_elements(model));
    // Assimp 5.2.5 stores these into the current material, of which there is none: SIGSEGV.
    dir.write("a.mtl", "# no material yet\nmap_Kd x.png\nnewmtl a\n");
    CHECK_THROWS_WITH(batchsim::assets::import_model(model, {}),
                      Catch::Contains("material library '" + (dir.path / "a.mtl").string() +
                                      "' line 2: 'map_Kd x.png' comes before any newmtl; "
                                      "expected newmtl first"));
    dir.write("a.mtl", "Kd 1 1 1\n\t a 0.5\nnewmtl a\n");  // blanks first, as Assimp skips them
    CHECK_THROWS_WITH(check_obj_elements(model), Catch::Contains("line 2: 'a 0.5' comes before"));
    // A library Assimp cannot find is looked for as the OBJ's own name with .mtl.
    const fs::path other = dir.write("other.obj", "mtllib missing.mtl\n" + kTriangle);
    CHECK_NOTHROW(check_obj_elements(other));
    dir.write("other.mtl", "bump b.png\n");
    CHECK_THROWS_WITH(check_obj_elements(other),
                      Catch::Contains("other.mtl' line 1: 'bump b.png'"));
}
