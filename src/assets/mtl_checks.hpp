// A check of the material libraries an OBJ names (mtllib) before Assimp reads them. Assimp
// 5.2.5 stores a texture map ("map_Kd ...", "bump ...", "disp ...", "norm ...") or an
// anisotropy ("a ...") into the current material without checking that there is one: in a
// library read before any material exists, such a statement before the first newmtl writes
// through a null pointer and ends the process (SIGSEGV; the anisotropy case is fixed in
// 5.3.0, the texture maps are not).
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace batchsim::assets {

// The file Assimp 5.2.5 reads for `mtllib NAME` in `obj`: NAME (the rest of the statement,
// spaces and all) next to the OBJ, else the OBJ's path with "mtl" for its last three
// characters; nullopt if neither is a file (Assimp then goes on without it).
std::optional<std::filesystem::path> material_library_path(const std::filesystem::path& obj,
                                                           std::string_view name);

// Throws Error(CorruptData) naming `library`, the line and the statement if a statement that
// needs a current material comes before the library's first newmtl; Error(Io) if it cannot
// be read.
void check_material_library(const std::filesystem::path& library);

}  // namespace batchsim::assets
