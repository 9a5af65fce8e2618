// libFuzzer harness for packed scene files. The first input byte is a selector, not part
// of the file: odd skips the checksums, so that mutations reach the structural checks
// behind them; even verifies them. (The file's own first byte is magic, so selecting on it
// would send every Skip input to "bad magic".) The only acceptable failure is
// batchsim::Error; a crash, a sanitizer report or any other exception is a bug.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

#include "assets/bvh.hpp"
#include "assets/packed_scene.hpp"
#include "core/check.hpp"

// Keeps the reads below from being optimised away.
volatile std::size_t g_sink = 0;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using batchsim::assets::ChecksumPolicy;
    using batchsim::assets::PackedScene;
    if (size == 0) return 0;
    const auto policy = (data[0] & 1u) != 0 ? ChecksumPolicy::Skip : ChecksumPolicy::Verify;
    try {
        const PackedScene scene = PackedScene::from_bytes({data + 1, size - 1}, policy);
        // Touch what a renderer would read, so that out-of-range views show up under ASan.
        std::size_t sum = scene.vertices().size() + scene.navmesh().size() + scene.source().size();
        for (const auto index : scene.indices()) sum += scene.vertices()[index].px > 0;
        for (std::size_t i = 0; i < scene.texture_count(); ++i) {
            const auto texture = scene.texture(i);
            sum += texture.name.size() + texture.pixels.back();
        }
        for (const auto& chunk : scene.chunks())
            sum += scene.materials()[chunk.material].base_color_layer;
        // Walk the BVH as trace.comp would: validation must keep it in bounds and in depth.
        const auto hit = batchsim::assets::closest_hit(
            scene.bvh_nodes(), scene.bvh_triangles(), {0.25f, 1.0f, 0.25f}, {0.1f, -1.0f, 0.2f},
            0.0f, std::numeric_limits<float>::infinity());
        if (hit)
            sum +=
                scene.materials()[scene.bvh_triangles()[hit->triangle].material].base_color_layer;
        sum += batchsim::assets::bvh_depth(scene.bvh_nodes());
        g_sink = sum;
    } catch (const batchsim::Error&) {
        // Rejected: what the fuzzer wants to see for every malformed input.
    }
    return 0;
}
