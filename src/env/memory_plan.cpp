#include "env/memory_plan.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <limits>
#include <numeric>
#include <sstream>
#include <system_error>

#include "assets/packed_scene.hpp"
#include "core/check.hpp"
#include "core/strings.hpp"
#include "shared.h"

namespace batchsim::env {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
// Bytes per pixel of each observation: depth float32, RGBA8.
constexpr std::uint64_t kDepthPixel = 4;
constexpr std::uint64_t kRgbPixel = 4;
// The raster backend's atlas targets per pixel: a float32 depth target, an RGBA8 colour
// target and a D32 z-buffer (render/atlas.hpp).
constexpr std::uint64_t kTargetPixel = 4;

std::string mib(std::uint64_t bytes) {
    return str((bytes + kMiB - 1) / kMiB, " MiB");
}

// Sum of the `count` largest sizes.
std::uint64_t largest_sum(std::span<const std::uint64_t> sizes, std::size_t count) {
    std::vector<std::uint64_t> sorted(sizes.begin(), sizes.end());
    count = std::min(count, sorted.size());
    std::partial_sort(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(count),
                      sorted.end(), std::greater<>());
    return std::accumulate(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(count),
                           std::uint64_t{0});
}

// The largest N with fixed + N * per_env <= available (0 if none).
std::uint64_t largest_batch(std::uint64_t fixed, std::uint64_t per_env, std::uint64_t available) {
    if (available <= fixed || per_env == 0) return 0;
    return (available - fixed) / per_env;
}

// One side's check (device or host); `what` names it, `largest` is the largest num_envs
// that fits on both sides.
void check_side(const char* what, std::uint64_t fixed, std::uint64_t per_env,
                std::uint64_t scene_bytes, std::uint64_t available, int num_envs,
                int scenes_resident, std::uint64_t largest) {
    const auto n = static_cast<std::uint64_t>(num_envs);
    const std::uint64_t needed = fixed + n * per_env;
    if (available == 0 || needed <= available) return;
    const std::string head = str(
        "configuration does not fit in ", what, " memory: num_envs=", num_envs, " need ",
        mib(needed), " (", mib(per_env * n), " for the environments at ", per_env, " bytes each, ",
        mib(fixed), " for the resident scenes of scenes_resident=", scenes_resident,
        ", two places per slot) but ", mib(available), " is available");
    if (available <= fixed)
        throw Error(Error::Kind::Unsupported,
                    str(head, "; the resident scenes alone (", mib(scene_bytes),
                        ") leave no room: lower scenes_resident"));
    throw Error(Error::Kind::Unsupported, str(head, "; the largest num_envs that fits is ", largest,
                                              " (or lower the resolution, or drop a sensor)"));
}

}  // namespace

MemoryNeeds estimate_memory(const sim::SimConfig& sim, const RenderOptions& render,
                            render::Backend backend, bool cpu_export,
                            std::span<const std::uint64_t> scene_bytes) {
    const std::uint64_t pixels = std::uint64_t{render.width} * render.height;
    const std::uint64_t outputs =
        pixels * ((render.depth ? kDepthPixel : 0) + (render.rgb ? kRgbPixel : 0));
    const std::uint64_t targets =
        backend == render::Backend::Raster
            ? pixels * kTargetPixel * (1 + (render.depth ? 1 : 0) + (render.rgb ? 1 : 0))
            : 0;
    const std::uint64_t views = outputs * (render.final_views ? 2 : 1);
    MemoryNeeds needs;
    needs.device_per_env = views + targets + 2 * sizeof(gpu::CameraPose);
    needs.host_per_env = cpu_export ? views : 0;
    const int slots = std::max(
        1, std::min({sim.scenes_resident, sim.num_envs, static_cast<int>(scene_bytes.size())}));
    needs.scene_bytes = largest_sum(scene_bytes, 2 * static_cast<std::size_t>(slots));
    needs.device_fixed = needs.scene_bytes;
    needs.host_fixed = needs.scene_bytes + largest_sum(scene_bytes, 1);
    return needs;
}

std::vector<std::uint64_t> scene_sizes(std::span<const std::filesystem::path> paths) {
    std::vector<std::uint64_t> out;
    out.reserve(paths.size());
    for (const auto& path : paths) out.push_back(assets::loaded_scene_bytes(path));
    return out;
}

std::uint64_t host_available_bytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string line;
    while (std::getline(meminfo, line)) {
        std::istringstream fields(line);
        std::string key;
        std::uint64_t kib = 0;
        if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
    }
    return 0;
}

void check_fits(const MemoryNeeds& needs, const MemoryBudget& budget, int num_envs,
                int scenes_resident) {
    std::uint64_t largest = std::numeric_limits<std::uint64_t>::max();  // 0 available: unknown
    if (budget.device_available > 0)
        largest = largest_batch(needs.device_fixed, needs.device_per_env, budget.device_available);
    if (budget.host_available > 0 && needs.host_per_env > 0)
        largest = std::min(
            largest, largest_batch(needs.host_fixed, needs.host_per_env, budget.host_available));
    check_side("device", needs.device_fixed, needs.device_per_env, needs.scene_bytes,
               budget.device_available, num_envs, scenes_resident, largest);
    check_side("host", needs.host_fixed, needs.host_per_env, needs.scene_bytes,
               budget.host_available, num_envs, scenes_resident, largest);
}

}  // namespace batchsim::env
