// A check of OBJ files before Assimp reads them. Assimp 5.2.5's OBJ loader sizes a mesh's
// vertex array from its line elements' segment counts, but a line element with one index
// ("l 5", or any statement starting with 'l', such as "lod 5") has no segment and still takes
// a vertex slot; a later line element of 3+ indices then writes 12 bytes past the array
// (assimp#4925, fixed in 5.3.0): heap corruption, found by fuzz/fuzz_importer.cpp. Statements
// are read here the way Assimp 5.2.5 splits them (line ends \n \r \0 \f, '\' continuations,
// cstype sections skipped, 'f', 'l' and 'p' by their first letter), and every index must be
// well formed and name a vertex, texture coordinate or normal that the file defines.
#pragma once

#include <filesystem>

namespace Assimp {
class Importer;
}

namespace batchsim::assets {

// True if `importer` would read `path` with its OBJ loader: Assimp's own choice, by the file's
// extension or, where no loader (or several) claims it, by the loaders' content tests in order.
// Those tests are Assimp code: run this only after our checks of the formats they read (the
// glTF2 test allocates whatever JSON length a GLB declares).
bool assimp_reads_as_obj(const Assimp::Importer& importer, const std::filesystem::path& path);

// Throws Error(CorruptData) naming `path`, the line, the statement and what was expected
// unless every face, line and point element is one Assimp 5.2.5 reads safely, and so are
// the material libraries it names (check_material_library); Error(Io) if a file cannot be
// read.
void check_obj_elements(const std::filesystem::path& path);

}  // namespace batchsim::assets
