// libFuzzer harness for the model importer's entry, assets::import_model: the input is a
// model file (GLB, glTF JSON, PLY or OBJ, told apart by its first bytes as a user's file
// name would) written to a scratch file and imported through our checks, Assimp and our
// geometry, material and texture code. Assimp is the system's (not instrumented): a crash
// inside it still stops the run, an out-of-bounds read inside it does not show. The only
// acceptable failure is batchsim::Error.
//
// Seeds (fuzz/corpus/importer/) are small models from Assimp's test set, Debian's
// assimp-testmodels (/usr/share/assimp/models: OBJ/box.obj, OBJ/cube_with_vertexcolors.obj,
// PLY/cube.ply, PLY/cube_binary.ply, and the Khronos sample BoxTextured as glTF2 GLB and as
// glTF with embedded buffers, CC-BY 4.0). regression-* seeds are inputs that once crashed or
// hung Assimp; regression-assimp-obj-line-overflow.obj (one-index line elements, assimp#4925)
// corrupts ASan's heap at its first run if our OBJ check ever lets it through.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "assets/importer.hpp"
#include "core/check.hpp"

namespace {

namespace fs = std::filesystem;

// FUZZ_DEBUG=1: say what each input did (a seed that is rejected fuzzes only the checks).
bool verbose() {
    static const bool on = std::getenv("FUZZ_DEBUG") != nullptr;
    return on;
}

// The extension a model with these first bytes would have.
const char* extension_of(std::string_view bytes) {
    if (bytes.starts_with("glTF")) return ".glb";
    if (bytes.starts_with("ply")) return ".ply";
    if (bytes.starts_with("{")) return ".gltf";
    return ".obj";
}

// A scratch folder per process, removed at exit.
struct ScratchDir {
    fs::path path = fs::temp_directory_path() / ("fuzz_importer_" + std::to_string(getpid()));
    ScratchDir() { fs::create_directories(path); }
    ~ScratchDir() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const ScratchDir scratch;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const fs::path model = scratch.path / (std::string("model") + extension_of(bytes));
    std::ofstream(model, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(size));
    try {
        const batchsim::assets::SceneData scene = batchsim::assets::import_model(model, {});
        if (scene.indices.empty()) std::abort();  // import_model promises triangles
        if (verbose()) std::fprintf(stderr, "imported %zu triangles\n", scene.indices.size() / 3);
    } catch (const batchsim::Error& e) {
        if (verbose()) std::fprintf(stderr, "rejected: %s\n", e.what());
        // Rejected: the expected outcome for malformed or unsupported input.
    }
    std::error_code ignored;
    fs::remove(model, ignored);
    return 0;
}
