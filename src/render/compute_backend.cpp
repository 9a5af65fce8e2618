// The compute backend: per batch, one dispatch traces every pixel of every view through the
// BVH of its view's scene (trace.comp) and writes depth straight into the output tensor;
// with colour, the views are sorted by resident place (shade_bin.comp) and one indirect
// shading dispatch per place over its own views (shade.comp) textures the hits. No
// atlas, no copies: on GPUs with few raster units (H100, H200) this uses the whole chip.
#include <algorithm>
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

using gpu::kMaxViewsPerDispatch;

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
    void record_binning(VkCommandBuffer commands, const BatchInputs& in) const;
    void record_shading(VkCommandBuffer commands, const BatchInputs& in) const;
    // Where batch b's ShadeDispatch[places][chunks] and view counts[places] begin.
    [[nodiscard]] VkDeviceSize dispatches_offset(std::uint32_t batch) const;
    [[nodiscard]] VkDeviceSize counts_offset(std::uint32_t batch) const;

    const vk::Device& device_;
    RendererConfig config_;
    const TextureTable& textures_;
    float tan_half_x_ = 0, tan_half_y_ = 0;
    vk::ComputePipeline trace_;
    vk::ComputePipeline shade_;       // only with colour, as everything below
    vk::ComputePipeline shade_bin_;   // sorts the views by place for shade_
    vk::Buffer scenes_;               // TraceScene[places], host-visible: written by scene_changed
    vk::Buffer hits_;                 // TraceHit[views * height * width]
    vk::Buffer shade_dispatches_;     // per batch: ShadeDispatch[places][chunks], uint[places]
    vk::Buffer shade_lists_;          // uint[places][views]: each place's views
    std::uint32_t shade_chunks_ = 1;  // shading dispatches per place (views / 65,535 rounded up)
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
            shade_bin_ = vk::create_compute_pipeline(device, vk::embedded_shader("shade_bin.comp"),
                                                     sizeof(gpu::ShadeBinParams));
            const VkDeviceSize pixels = VkDeviceSize{config.views} * config.width * config.height;
            hits_ = device_buffer(device, pixels * sizeof(gpu::TraceHit), 0);
            shade_chunks_ = (config.views + kMaxViewsPerDispatch - 1) / kMaxViewsPerDispatch;
            shade_dispatches_ = device_buffer(
                device, dispatches_offset(config.batches),
                VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
            shade_lists_ = device_buffer(device, VkDeviceSize{config.places} * config.views * 4, 0);
        }
    } catch (...) {
        release();
        throw;
    }
}

void ComputeBackend::release() {
    vk::destroy_buffer(device_, shade_lists_);
    vk::destroy_buffer(device_, shade_dispatches_);
    vk::destroy_buffer(device_, hits_);
    vk::destroy_buffer(device_, scenes_);
    vk::destroy_compute_pipeline(device_, shade_bin_);
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
    if (config_.rgb) record_binning(commands, in);
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

VkDeviceSize ComputeBackend::dispatches_offset(std::uint32_t batch) const {
    const VkDeviceSize per_batch =
        VkDeviceSize{config_.places} *
        (shade_chunks_ * sizeof(gpu::ShadeDispatch) + sizeof(std::uint32_t));
    return batch * per_batch;
}

VkDeviceSize ComputeBackend::counts_offset(std::uint32_t batch) const {
    return dispatches_offset(batch) +
           VkDeviceSize{config_.places} * shade_chunks_ * sizeof(gpu::ShadeDispatch);
}

// The batch's views listed by place, and each place's dispatch counting them.
void ComputeBackend::record_binning(VkCommandBuffer commands, const BatchInputs& in) const {
    const VkDeviceSize begin = dispatches_offset(in.batch);
    vkCmdFillBuffer(commands, shade_dispatches_.handle, begin,
                    dispatches_offset(in.batch + 1) - begin, 0);
    vk::record_memory_barrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT,
                              VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    gpu::ShadeBinParams params{};
    params.poses = in.poses;
    params.dispatches = shade_dispatches_.address + begin;
    params.counts = shade_dispatches_.address + counts_offset(in.batch);
    params.lists = shade_lists_.address;
    params.first_view = in.views.first_view, params.view_count = in.views.view_count;
    params.views = config_.views, params.place_count = config_.places;
    params.chunk_count = shade_chunks_;
    params.tiles_x = tiles(config_.width), params.tiles_y = tiles(config_.height);
    const std::uint32_t threads = std::max(params.view_count, params.place_count * shade_chunks_);
    vk::dispatch(commands, shade_bin_, &params,
                 (threads + BATCHSIM_SHADE_BIN_GROUP_SIZE - 1) / BATCHSIM_SHADE_BIN_GROUP_SIZE);
}

// Per place with a scene: its views' hits, textured from the place's descriptor set.
void ComputeBackend::record_shading(VkCommandBuffer commands, const BatchInputs& in) const {
    vk::record_memory_barrier(
        commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
    const float pixel_spread = std::atan(2.0f * tan_half_y_ / static_cast<float>(config_.height));
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
        params.pixel_spread = pixel_spread;
        vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE, shade_.layout, 0, 1,
                                &textures_.sets[p], 0, nullptr);
        for (std::uint32_t chunk = 0; chunk < shade_chunks_; ++chunk) {
            const VkDeviceSize first = VkDeviceSize{p} * config_.views + in.views.first_view +
                                       VkDeviceSize{chunk} * kMaxViewsPerDispatch;
            params.view_list = shade_lists_.address + first * sizeof(std::uint32_t);
            const VkDeviceSize command = VkDeviceSize{p} * shade_chunks_ + chunk;
            vk::dispatch_indirect(
                commands, shade_, &params, shade_dispatches_.handle,
                dispatches_offset(in.batch) + command * sizeof(gpu::ShadeDispatch));
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
