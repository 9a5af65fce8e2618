// What BatchRenderer's two backends have in common. BatchRenderer owns the resident scenes,
// the camera poses on the GPU, the texture table, the batches' command buffers and the
// output tensors; a backend records, into a batch's commands after the pose upload, the
// passes that turn poses into the outputs, and keeps whatever per-place state those need.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include <vulkan/vulkan_core.h>

#include "device/tensor.hpp"
#include "render/gpu_profile.hpp"
#include "render/gpu_scene.hpp"
#include "render/texture_table.hpp"
#include "render/view_batches.hpp"

namespace batchsim::render {

struct RendererConfig;

// Everything a backend records one batch from.
struct BatchInputs {
    std::uint32_t batch = 0;
    ViewBatch views;
    VkDeviceAddress poses = 0;                        // CameraPose[config.views], device-local
    std::span<const std::optional<GpuScene>> scenes;  // by place; empty places hold nothing
    const TextureTable* textures = nullptr;           // one set per place
    const GpuProfile* profile = nullptr;              // marks Culled, Drawn and Copied are ours
    const device::PersistentTensor* depth = nullptr;  // null unless an output
    const device::PersistentTensor* rgb = nullptr;
};

class RenderBackend {
public:
    virtual ~RenderBackend() = default;
    // Whether the backend traces BVHs (scenes must then be uploaded with theirs).
    [[nodiscard]] virtual bool needs_bvh() const = 0;
    // Place `place` now holds `scene` (null: emptied). The GPU is idle and every batch
    // will be recorded again before the next submission.
    virtual void scene_changed(std::uint32_t place, const GpuScene* scene) = 0;
    // Records the batch's passes after the pose upload (whose writes are made visible to
    // compute and vertex shaders), through to the outputs being visible to the host.
    virtual void record(VkCommandBuffer commands, const BatchInputs& inputs) const = 0;
    // Whether pipeline statistics of a draw pass are recorded (DrawStatistics).
    [[nodiscard]] virtual bool records_draw_statistics() const = 0;
};

std::unique_ptr<RenderBackend> create_raster_backend(const vk::Device& device,
                                                     const RendererConfig& config,
                                                     const TextureTable& textures);
std::unique_ptr<RenderBackend> create_compute_backend(const vk::Device& device,
                                                      const RendererConfig& config,
                                                      const TextureTable& textures);

}  // namespace batchsim::render
