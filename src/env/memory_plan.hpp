// The memory a Simulator will take, worked out from its configuration before anything is
// allocated, so that a batch that cannot fit is refused with the numbers and the largest
// batch that would fit, not with VK_ERROR_OUT_OF_DEVICE_MEMORY half way through creation.
//
// Device memory per environment: the observation tensors (depth float32 and/or RGBA8 per
// pixel), their final-view twins, the raster backend's render targets and two camera poses.
// Fixed device memory: the resident scenes, 2 places per slot (a slot's current scene and
// the next one loading), estimated as the largest scene files of the dataset (the file holds
// what the GPU copy holds, plus the navmesh; BC1 textures decoded on a device without BC
// grow 8x, which this does not count). Host memory: the same scenes as the loader holds them
// (their files; Detour's navmesh copy adds a little), one file's upload staging, and the
// observation tensors where they are exported to the CPU. An estimate to refuse the
// impossible early, not an exact account: what it leaves out is small next to the outputs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "env/simulator.hpp"

namespace batchsim::env {

struct MemoryNeeds {
    std::uint64_t device_per_env = 0;
    std::uint64_t device_fixed = 0;  // resident scenes
    std::uint64_t host_per_env = 0;
    std::uint64_t host_fixed = 0;   // resident scenes and upload staging
    std::uint64_t scene_bytes = 0;  // of the fixed parts: the resident scenes' bytes
};

struct MemoryBudget {
    std::uint64_t device_available = 0;  // VK_EXT_memory_budget's, or the heap size
    std::uint64_t host_available = 0;    // /proc/meminfo MemAvailable; 0 = unknown (no check)
};

// `scene_bytes`: what every scene takes once loaded (scene_sizes; 0 for one that is missing:
// the loader will name it). `backend` must be resolved (not Auto).
MemoryNeeds estimate_memory(const sim::SimConfig& sim, const RenderOptions& render,
                            render::Backend backend, bool cpu_export,
                            std::span<const std::uint64_t> scene_bytes);

// What each of `paths` takes once loaded (0 where a file cannot be read): the file's size, or
// a deflated packed scene's loaded size (assets::loaded_scene_bytes), so that a scene stored in
// a fifth of its bytes is not planned at a fifth of its memory.
std::vector<std::uint64_t> scene_sizes(std::span<const std::filesystem::path> paths);

// Host memory available now (MemAvailable), 0 if unknown.
std::uint64_t host_available_bytes();

// Throws Error(Unsupported) naming what is needed, what is available and the largest
// num_envs (or, if the scenes alone do not fit, that scenes_resident must shrink).
void check_fits(const MemoryNeeds& needs, const MemoryBudget& budget, int num_envs,
                int scenes_resident);

}  // namespace batchsim::env
