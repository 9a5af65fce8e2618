// libFuzzer harness for the glTF JSON the importer reads itself (assets/gltf_json,
// assets/gltf_checks): parse, then run the texture checks on whatever tree comes out. The
// only acceptable failure is batchsim::Error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "assets/gltf_checks.hpp"
#include "core/check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace batchsim::assets::gltf;
    try {
        const JsonValue doc = parse_json({reinterpret_cast<const char*>(data), size}, "fuzz");
        check_base_color_textures(doc, "fuzz");
    } catch (const batchsim::Error&) {
        // Rejected: the expected outcome for malformed or unsupported input.
    }
    return 0;
}
