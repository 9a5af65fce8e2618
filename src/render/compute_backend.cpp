// The compute backend: per batch, one dispatch traces every pixel of every view through the
// BVH of its view's scene (trace.comp) and writes depth straight into the output tensor;
// with colour, one shading dispatch per resident place (shade.comp) textures the hits. No
// atlas, no copies: on GPUs with few raster units (H100, H200) this uses the whole chip.
#include <cmath>
#include <numbers>
#include <vector>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "render/batch_renderer.hpp"
#include "render/draw_buffers.hpp"
#include "render/render_backend.hpp"
#include "vk/embedded_shaders.hpp"
#include "vk/pipeline.hpp"
#include "vk/sync.hpp"

namespace batchsim::render {
namespace {

// Views per dispatch: the z workgroup count every Vulkan device supports.
constexpr std::uint32_t kMaxViewsPerDispatch = 65535;

std::uint32_t tiles(std::uint32_t pixels) {
    return (pixels + BATCHSIM_TRACE_TILE - 1) / BATCHSIM_TRACE_TILE;
}

class ComputeBackend final : public RenderBackend {
public:
    ComputeBackend(const vk::Device& device, const RendererConfig& config,
                   const TextureTable& textures);
    ~ComputeBackend() override { release(); }
    ComputeBackend(const ComputeBackend&) = delete;
    ComputeBackend& operator=(const ComputeBackend&) = delete;

    [[nodiscard]] bool needs_bvh() const override { return true; }
    void scene_changed(std::uint32_t place, const GpuScene* scene) override;
    void record(VkCommandBuffer commands, const BatchInputs& in) const override;
    [[nodiscard]] bool records_draw_statistics() const override { return false; }

private:
    void release();
    [[nodiscard]] gpu::TraceParams trace_params(const BatchInputs& in) const;
    void record_trace(VkCommandBuffer commands, const BatchInputs& in) const;
    void record_shading(VkCommandBuffer commands, const BatchInputs& in) const;

    const vk::Device& device_;
    RendererConfig config_;
    const TextureTable& textures_;
    float tan_half_x_ = 0, tan_half_y_ = 0;
    vk::ComputePipeline trace_;
    vk::ComputePipeline shade_;  // only with colour
    vk::Buffer scenes_;          // TraceScene[places], host-visible: written by scene_changed
    vk::Buffer hits_;            // TraceHit[views * height * width]; only with colour
};

ComputeBackend::ComputeBackend(const vk::Device& device, const RendererConfig& config,
                               const TextureTable& textures)
    : device_(device), config_(config), textures_(textures) {
    tan_half_x_ = std::tan(config.hfov_degrees * std::numbers::pi_v<float> / 360.0f);
    tan_half_y_ =
        tan_half_x_ * static_cast<float>(config.height) / static_cast<float>(config.width);
    try {
        trace_ = vk::create_compute_pipeline(device, vk::embedded_shader("trace.comp"),
                                             sizeof(gpu::TraceParams));
        const VkDeviceSize table_bytes = VkDeviceSize{config.places} * sizeof(gpu::TraceScene);
        scenes_ = vk::create_buffer(device, {.size = table_bytes,
                                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                             .location = vk::MemoryLocation::HostVisible});
        std::fill_n(static_cast<std::uint8_t*>(scenes_.mapped), table_bytes, 0);
        if (config.rgb) {
            shade_ = vk::create_compute_pipeline(device, vk::embedded_shader("shade.comp"),
                                                 sizeof(gpu::ShadeParams), textures.layout);
            const VkDeviceSize pixels = VkDeviceSize{config.views} * config.width * config.height;
            hits_ = device_buffer(device, pixels * sizeof(gpu::TraceHit), 0);
        }
    } catch (...) {
        release();
        throw;
    }
}

void ComputeBackend::release() {
    vk::destroy_buffer(device_, hits_);
    vk::destroy_buffer(device_, scenes_);
    vk::destroy_compute_pipeline(device_, shade_);
    vk::destroy_compute_pipeline(device_, trace_);
}

void ComputeBackend::scene_changed(std::uint32_t place, const GpuScene* scene) {
    BATCHSIM_CHECK(!scene || scene->bvh_nodes.address != 0, InvalidArgument,
                   str("scene ", scene ? scene->source : "", " was uploaded without its BVH"));
    gpu::TraceScene entry{};
    if (scene) entry = {scene->bvh_nodes.address, scene->bvh_triangles.address};
    static_cast<gpu::TraceScene*>(scenes_.mapped)[place] = entry;
}

void ComputeBackend::record(VkCommandBuffer commands, const BatchInputs& in) const {
    record_timer_mark(commands, *in.profile, in.batch, TimerMark::Culled);  // nothing to cull
    record_trace(commands, in);
    if (config_.rgb) record_shading(commands, in);
    record_timer_mark(commands, *in.profile, in.batch, TimerMark::Drawn);
    // The outputs were written by shaders: make them visible to the host (CPU export).
    vk::record_memory_barrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                              VK_ACCESS_HOST_READ_BIT);
    record_timer_mark(commands, *in.profile, in.batch, TimerMark::Copied);
}

gpu::TraceParams ComputeBackend::trace_params(const BatchInputs& in) const {
    gpu::TraceParams params{};
    params.poses = in.poses;
    params.scenes = scenes_.address;
    params.depth = in.depth ? in.depth->device_address() : 0;
    params.hits = hits_.address;  // 0 without colour
    params.rgb = in.rgb ? in.rgb->device_address() : 0;
    params.width = config_.width, params.height = config_.height;
    params.tan_half_x = tan_half_x_, params.tan_half_y = tan_half_y_;
    params.near_plane = config_.near_plane, params.far_plane = config_.far_plane;
    params.place_count = config_.places;
    return params;
}

// One dispatch for the whole batch (more only past 65,535 views).
void ComputeBackend::record_trace(VkCommandBuffer commands, const BatchInputs& in) const {
    gpu::TraceParams params = trace_params(in);
    const std::uint32_t end = in.views.first_view + in.views.view_count;
    for (std::uint32_t first = in.views.first_view; first < end; first += kMaxViewsPerDispatch) {
        params.first_view = first;
        params.view_count = std::min(end - first, kMaxViewsPerDispatch);
        vk::dispatch(commands, trace_, &params,
                     {tiles(config_.width), tiles(config_.height), params.view_count});
    }
}

// Per place with a scene: its views' hits, textured from the place's descriptor set.
void ComputeBackend::record_shading(VkCommandBuffer commands, const BatchInputs& in) const {
    vk::record_memory_barrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_ACCESS_SHADER_READ_BIT);
    const float pixel_spread = std::atan(2.0f * tan_half_y_ / static_cast<float>(config_.height));
    const std::uint32_t end = in.views.first_view + in.views.view_count;
    for (std::uint32_t p = 0; p < in.scenes.size(); ++p) {
        if (!in.scenes[p]) continue;
        const GpuScene& scene = *in.scenes[p];
        gpu::ShadeParams params{};
        params.poses = in.poses, params.hits = hits_.address;
        params.rgb = in.rgb->device_address();
        params.triangles = scene.bvh_triangles.address, params.indices = scene.indices.address;
        params.vertices = scene.vertices.address, params.materials = scene.materials.address;
        params.width = config_.width, params.height = config_.height;
        params.tan_half_x = tan_half_x_, params.tan_half_y = tan_half_y_;
        params.pixel_spread = pixel_spread, params.place = p;
        vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE, shade_.layout, 0, 1,
                                &textures_.sets[p], 0, nullptr);
        for (std::uint32_t first = in.views.first_view; first < end;
             first += kMaxViewsPerDispatch) {
            params.first_view = first;
            params.view_count = std::min(end - first, kMaxViewsPerDispatch);
            vk::dispatch(commands, shade_, &params,
                         {tiles(config_.width), tiles(config_.height), params.view_count});
        }
    }
}

}  // namespace

std::unique_ptr<RenderBackend> create_compute_backend(const vk::Device& device,
                                                      const RendererConfig& config,
                                                      const TextureTable& textures) {
    return std::make_unique<ComputeBackend>(device, config, textures);
}

}  // namespace batchsim::render
