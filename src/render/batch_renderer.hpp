// BatchRenderer: every view of a batch in one submission. K..2K scenes are resident at
// "places"; each view's CameraPose (shared.h) names its place. The raster backend culls
// mesh chunks per view on the GPU, draws all views into tiles of one atlas with one
// multi-draw-indirect-count call per place, and copies the tiles into persistent tensors.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "assets/packed_scene.hpp"
#include "export/gpu_context.hpp"
#include "export/tensor.hpp"
#include "shared.h"

namespace batchsim::render {

struct RendererConfig {
    std::uint32_t views = 1;
    std::uint32_t width = 64;
    std::uint32_t height = 64;
    float hfov_degrees = 90.0f;  // horizontal; square pixels
    float near_plane = 0.01f;    // Habitat's defaults
    float far_plane = 1000.0f;
    std::uint32_t places = 2;  // scenes resident at once (two per simulator slot)
};

// Throws Error(InvalidArgument) naming a bad field.
void validate(const RendererConfig& config);

class BatchRenderer {
public:
    // Throws Error(Unsupported) naming the device features it lacks.
    BatchRenderer(std::shared_ptr<GpuContext> context, const RendererConfig& config);
    ~BatchRenderer();
    BatchRenderer(const BatchRenderer&) = delete;
    BatchRenderer& operator=(const BatchRenderer&) = delete;

    [[nodiscard]] const RendererConfig& config() const;
    // Uploads `scene` to resident place `place` (null empties it), after the GPU is done
    // with what was there. Throws Error(Unsupported) when it does not fit the device.
    void set_scene(std::uint32_t place, const assets::PackedScene* scene);
    [[nodiscard]] std::size_t scene_bytes(std::uint32_t place) const;  // device memory

    // Renders view i from poses[i] into the outputs. With CPU export it returns once they
    // are written; with CUDA export the work is ordered on `cuda_stream` (see GpuContext).
    void render(std::span<const gpu::CameraPose> poses, std::uintptr_t cuda_stream);

    // [views, 1, height, width] float32: distance along the view axis in metres; 0 where
    // nothing lies between the near and far planes.
    [[nodiscard]] const std::shared_ptr<PersistentTensor>& depth() const;
    // [views, height, width, 4] uint8: unlit sRGB colour, alpha 255; black where nothing.
    [[nodiscard]] const std::shared_ptr<PersistentTensor>& rgb() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace batchsim::render
