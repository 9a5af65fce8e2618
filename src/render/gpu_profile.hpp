// A built-in GPU profile of each view batch, so the renderer needs no external tool to say
// where its time goes: timestamps around its passes (pose upload, culling, drawing, copying
// out) and, where the device counts them, pipeline statistics of the draw pass. Read back
// after the batch has finished.
#pragma once

#include <cstdint>
#include <optional>

#include <vulkan/vulkan_core.h>

#include "vk/device.hpp"

namespace batchsim::render {

// Milliseconds of GPU time per pass of one batch's last submission. The compute backend
// has no culling or copies (about 0 there); its trace and shading passes are draw_ms.
struct PassTimes {
    double upload_ms = 0;  // camera poses to device memory (raster: draw counters zeroed)
    double cull_ms = 0;    // frustum culling into indirect draws
    double draw_ms = 0;    // rasterising every view's tile, or tracing and shading
    double copy_ms = 0;    // tiles into the output tensors
    // When the batch's commands began and ended on the device's timestamp clock (its valid
    // bits, in ms): only differences mean anything, e.g. between batches of one device.
    double start_ms = 0;
    double end_ms = 0;
};

// What the draw pass of one batch's last submission processed.
struct DrawStatistics {
    std::uint64_t triangles = 0;          // assembled from the indirect draws
    std::uint64_t vertex_shaders = 0;     // vertex shader invocations (after vertex reuse)
    std::uint64_t clipped_triangles = 0;  // triangles entering clipping
    std::uint64_t clipper_output = 0;     // primitives leaving it (for rasterisation)
    std::uint64_t fragment_shaders = 0;   // fragment shader invocations
};

// The marks a batch writes, in order: before everything and after each pass.
enum class TimerMark : std::uint32_t { Start, Uploaded, Culled, Drawn, Copied, Count };

struct GpuProfile {
    VkQueryPool timestamps = VK_NULL_HANDLE;  // null where the queue has no timestamps
    VkQueryPool statistics = VK_NULL_HANDLE;  // null without pipelineStatisticsQuery
    std::uint32_t batches = 0;
    double nanoseconds_per_tick = 0;
    std::uint64_t valid_mask = 0;
};

GpuProfile create_gpu_profile(const vk::Device& device, std::uint32_t batches);
void destroy_gpu_profile(const vk::Device& device, GpuProfile& profile);

// Outside a render pass, at the start of the batch's commands.
void record_profile_reset(VkCommandBuffer commands, const GpuProfile& profile, std::uint32_t batch);
// Once every command recorded before it has finished.
void record_timer_mark(VkCommandBuffer commands, const GpuProfile& profile, std::uint32_t batch,
                       TimerMark mark);
// Around the draw pass, outside the render pass instance.
void record_statistics_begin(VkCommandBuffer commands, const GpuProfile& profile,
                             std::uint32_t batch);
void record_statistics_end(VkCommandBuffer commands, const GpuProfile& profile,
                           std::uint32_t batch);

// The batch's results once a submission of it has finished; nullopt where not counted.
std::optional<PassTimes> read_pass_times(const vk::Device& device, const GpuProfile& profile,
                                         std::uint32_t batch);
std::optional<DrawStatistics> read_draw_statistics(const vk::Device& device,
                                                   const GpuProfile& profile, std::uint32_t batch);

}  // namespace batchsim::render
