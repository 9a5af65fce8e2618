// BatchRenderer: every view of a batch in one submission. K..2K scenes are resident at
// "places"; each view's CameraPose (shared.h) names its place. Two backends produce the same
// outputs from the same inputs:
// - raster: culls mesh chunks per view on the GPU, draws all views into tiles of one atlas
//   with one multi-draw-indirect-count call per place, and copies the tiles into the tensors;
// - compute: one dispatch casts every pixel's ray through the BVH of its view's scene and
//   writes the tensors directly (plus one shading dispatch per place for colour). It uses
//   the whole GPU where graphics units are few (H100, H200).
//
// The views split into `batches` contiguous ranges, each with a command buffer recorded
// once (again only after set_scene) and submitted on its own: one batch renders everything
// at once; two keep one half on the GPU while the CPU simulates the other; one per view is
// the naive mode, a submission per environment. Not thread-safe: one caller at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "assets/packed_scene.hpp"
#include "device/gpu_context.hpp"
#include "device/tensor.hpp"
#include "render/gpu_profile.hpp"
#include "shared.h"

namespace batchsim::render {

enum class Backend : std::uint8_t {
    Auto,     // resolved by choose_backend when the renderer is created
    Raster,   // graphics pipeline
    Compute,  // ray casting in compute shaders
};

// "auto", "raster", "compute", both ways; parse_backend throws Error(InvalidArgument).
[[nodiscard]] const char* backend_name(Backend backend);
[[nodiscard]] Backend parse_backend(std::string_view name);
// The backend `Auto` means on `device`: compute, unless the device cannot run it (see
// batch_renderer.cpp for the rule and the measurements behind it).
[[nodiscard]] Backend choose_backend(const vk::Device& device);

// Most places a renderer keeps: each holds a scene's geometry, BVH and a descriptor set of
// its textures, and every dispatch and draw loops over the places; 256 bounds those tables.
inline constexpr std::uint32_t kMaxPlaces = 256;

struct RendererConfig {
    std::uint32_t views = 1;
    std::uint32_t width = 64;
    std::uint32_t height = 64;
    float hfov_degrees = 90.0f;  // horizontal; square pixels
    float near_plane = 0.01f;    // Habitat's defaults
    float far_plane = 1000.0f;
    std::uint32_t places = 2;   // scenes resident at once (two per simulator slot)
    std::uint32_t batches = 1;  // 1..views; views = the naive mode
    bool depth = true;          // outputs rendered (at least one)
    bool rgb = true;
    Backend backend = Backend::Auto;  // resolved by choose_backend at creation
};

struct ViewRange {
    std::uint32_t first = 0;
    std::uint32_t count = 0;
};

// Throws Error(InvalidArgument) naming a bad field.
void validate(const RendererConfig& config);

class BatchRenderer {
public:
    // Throws Error(Unsupported) naming the device features it lacks.
    BatchRenderer(std::shared_ptr<device::GpuContext> context, const RendererConfig& config);
    ~BatchRenderer();
    BatchRenderer(const BatchRenderer&) = delete;
    BatchRenderer& operator=(const BatchRenderer&) = delete;

    // The configuration, with `backend` resolved (never Auto).
    [[nodiscard]] const RendererConfig& config() const;
    // Uploads `scene` to resident place `place` (null empties it), after the GPU is done
    // with what was there. Throws Error(Unsupported) when it does not fit the device.
    void set_scene(std::uint32_t place, const assets::PackedScene* scene);
    // Commands every batch's submission runs after uploading its poses, given the batch's
    // view range (copies of what the caller staged for those views, say); empty for none.
    // Takes effect at the next submission (the batches are recorded again).
    using BatchCopies = std::function<void(VkCommandBuffer, ViewRange)>;
    void set_batch_copies(BatchCopies record);
    // Device memory of the scene in `place` (0 if empty): all of it, or its textures alone.
    [[nodiscard]] std::size_t scene_bytes(std::uint32_t place, bool textures_only = false) const;

    // Renders view i from poses[i] into the outputs, batch after batch. With CPU export it
    // returns once they are written; with CUDA export the work is ordered on `cuda_stream`
    // (see GpuContext).
    void render(std::span<const gpu::CameraPose> poses, std::uintptr_t cuda_stream);

    [[nodiscard]] std::uint32_t batch_count() const;
    [[nodiscard]] ViewRange batch_views(std::uint32_t batch) const;
    // Starts rendering one batch's views (poses for exactly its range) and returns without
    // waiting for the GPU: the batch's slices of the outputs are valid after wait(batch) with
    // CPU export, and for work enqueued on `cuda_stream` afterwards with CUDA export. Waits
    // only for the batch's previous submission, whose command buffer it reuses.
    void submit(std::uint32_t batch, std::span<const gpu::CameraPose> poses,
                std::uintptr_t cuda_stream);
    // Blocks until the batch's last submission has finished on the GPU.
    void wait(std::uint32_t batch);
    // GPU time per pass of the batch's last submission seen finished, by wait(batch) or by
    // the batch's next submit(), which waits for it (so while a render is in flight, the one
    // before); nullopt before one or on a queue without timestamps. Any thread.
    [[nodiscard]] std::optional<PassTimes> pass_times(std::uint32_t batch) const;
    // What the batch's last finished draw pass processed; nullopt before one, where the
    // device has no pipeline statistics queries, or with the compute backend (no draws).
    // Call after wait(batch).
    [[nodiscard]] std::optional<DrawStatistics> draw_statistics(std::uint32_t batch) const;

    // [views, 1, height, width] float32: distance along the view axis in metres; 0 where
    // nothing lies between the near and far planes. Null unless config.depth.
    [[nodiscard]] const std::shared_ptr<device::PersistentTensor>& depth() const;
    // [views, height, width, 4] uint8: unlit sRGB colour, alpha 255; black where nothing.
    // Null unless config.rgb.
    [[nodiscard]] const std::shared_ptr<device::PersistentTensor>& rgb() const;
    [[nodiscard]] const std::shared_ptr<device::GpuContext>& context() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace batchsim::render
