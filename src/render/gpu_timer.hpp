// GPU timestamps around the passes of each view batch, so a profile of the renderer needs
// no external tool: where a batch's GPU time goes (pose upload, culling, drawing, copying
// out), read back after the batch has finished.
#pragma once

#include <cstdint>
#include <optional>

#include <vulkan/vulkan_core.h>

#include "vk/device.hpp"

namespace batchsim::render {

// Milliseconds of GPU time per pass of one batch's last submission.
struct PassTimes {
    double upload_ms = 0;  // camera poses to device memory, draw counters zeroed
    double cull_ms = 0;    // frustum culling into indirect draws
    double draw_ms = 0;    // rasterising every view's tile
    double copy_ms = 0;    // tiles into the output tensors
    [[nodiscard]] double total_ms() const { return upload_ms + cull_ms + draw_ms + copy_ms; }
};

// The marks a batch writes, in order: before everything and after each pass.
enum class TimerMark : std::uint32_t { Start, Uploaded, Culled, Drawn, Copied, Count };

struct GpuTimer {
    VkQueryPool pool = VK_NULL_HANDLE;  // null where the queue has no timestamps
    std::uint32_t batches = 0;
    double nanoseconds_per_tick = 0;
    std::uint64_t valid_mask = 0;
};

GpuTimer create_gpu_timer(const vk::Device& device, std::uint32_t batches);
void destroy_gpu_timer(const vk::Device& device, GpuTimer& timer);

// Outside a render pass, at the start of the batch's commands.
void record_timer_reset(VkCommandBuffer commands, const GpuTimer& timer, std::uint32_t batch);
// Once every command recorded before it has finished.
void record_timer_mark(VkCommandBuffer commands, const GpuTimer& timer, std::uint32_t batch,
                       TimerMark mark);
// The batch's pass times once its submission has finished; nullopt without timestamps.
std::optional<PassTimes> read_pass_times(const vk::Device& device, const GpuTimer& timer,
                                         std::uint32_t batch);

}  // namespace batchsim::render
