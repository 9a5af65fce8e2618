// The file system Assimp reads models through: regular files only. Assimp's own fopen()s a
// file to test that it exists and to read it, so a named pipe a model names (a glTF
// buffers[].uri, an OBJ mtllib) blocked the import in open() for ever.
#pragma once

#include <string>

#include <assimp/DefaultIOSystem.h>
#include <assimp/Importer.hpp>

namespace batchsim::assets {

class RegularFileSystem : public Assimp::DefaultIOSystem {
public:
    // stat(): true for a file of any kind, so that Open() refuses a pipe by name rather
    // than the importer calling it missing.
    bool Exists(const char* file) const override;
    // Opens without blocking; anything but a regular file gives nullptr and a refusal().
    Assimp::IOStream* Open(const char* file, const char* mode = "rb") override;

    // Why the first file refused was refused ("model '...' is a named pipe ..."), or "".
    [[nodiscard]] const std::string& refusal() const { return refusal_; }

private:
    std::string refusal_;
};

// Installs a RegularFileSystem on `importer`, which owns it; returns it.
RegularFileSystem& read_regular_files_only(Assimp::Importer& importer);

// Throws Error(InvalidArgument) naming `model` and the file if `files` refused one: some
// importers (OBJ's material libraries) go on without a file they cannot open.
void check_no_refusal(const RegularFileSystem& files, const std::string& model);

}  // namespace batchsim::assets
