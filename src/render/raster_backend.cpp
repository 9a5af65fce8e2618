// The raster backend: per batch, a compute pass culls every place's mesh chunks per view
// into indirect draws, one multi-draw-indirect-count call per place draws all views into
// tiles of one atlas, and the tiles are copied into the output tensors.
#include <cmath>
#include <numbers>
#include <vector>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "render/atlas.hpp"
#include "render/batch_renderer.hpp"
#include "render/draw_buffers.hpp"
#include "render/render_backend.hpp"
#include "vk/embedded_shaders.hpp"
#include "vk/graphics_pipeline.hpp"
#include "vk/pipeline.hpp"
#include "vk/sync.hpp"

namespace batchsim::render {
namespace {

void require_features(const vk::Device& device) {
    vk::DeviceFeatures wanted;
    wanted.graphics_queue = wanted.dynamic_rendering = wanted.synchronization2 = true;
    wanted.draw_indirect_count = wanted.multi_draw_indirect = true;
    wanted.shader_draw_parameters = wanted.shader_clip_distance = true;
    const auto missing = vk::missing_features(device.features, wanted);
    BATCHSIM_CHECK(missing.empty(), Unsupported,
                   str("the raster renderer needs ", join(missing), ", which ", device.info.name,
                       " does not offer"));
}

const char* fragment_shader(const RendererConfig& config) {
    if (!config.rgb) return "raster_depth.frag";
    return config.depth ? "raster.frag" : "raster_rgb.frag";
}

std::vector<VkFormat> target_formats(const RendererConfig& config) {
    std::vector<VkFormat> formats;
    if (config.depth) formats.push_back(kDepthTargetFormat);
    if (config.rgb) formats.push_back(kColorTargetFormat);
    return formats;
}

class RasterBackend final : public RenderBackend {
public:
    RasterBackend(const vk::Device& device, const RendererConfig& config,
                  const TextureTable& textures);
    ~RasterBackend() override { release(); }
    RasterBackend(const RasterBackend&) = delete;
    RasterBackend& operator=(const RasterBackend&) = delete;

    [[nodiscard]] bool needs_bvh() const override { return false; }
    void scene_changed(std::uint32_t place, const GpuScene* scene) override;
    void record(VkCommandBuffer commands, const BatchInputs& in) const override;
    [[nodiscard]] bool records_draw_statistics() const override { return true; }

private:
    void release();
    [[nodiscard]] gpu::ViewParams view_params(std::uint32_t view_count) const;
    void record_counter_reset(VkCommandBuffer commands, const BatchInputs& in) const;
    void record_culling(VkCommandBuffer commands, const BatchInputs& in) const;
    void record_drawing(VkCommandBuffer commands, const BatchInputs& in) const;

    const vk::Device& device_;
    RendererConfig config_;
    const TextureTable& textures_;
    AtlasLayout layout_;
    AtlasTargets targets_;
    vk::ComputePipeline cull_;
    vk::GraphicsPipeline raster_;
    std::vector<PlaceDraws> draws_;  // by place: the culling pass's output
};

RasterBackend::RasterBackend(const vk::Device& device, const RendererConfig& config,
                             const TextureTable& textures)
    : device_(device), config_(config), textures_(textures) {
    require_features(device);
    layout_ = atlas_layout(device, config.views, config.width, config.height);
    draws_.resize(config.places);
    try {
        targets_ =
            create_atlas_targets(device, layout_, {.depth = config.depth, .rgb = config.rgb});
        cull_ = vk::create_compute_pipeline(device, vk::embedded_shader("cull.comp"),
                                            sizeof(gpu::CullParams));
        raster_ = vk::create_graphics_pipeline(
            device,
            {.vertex_spirv = vk::embedded_shader(config.rgb ? "raster.vert" : "raster_depth.vert"),
             .fragment_spirv = vk::embedded_shader(fragment_shader(config)),
             .color_formats = target_formats(config),
             .depth_format = kZBufferFormat,
             .push_constant_size = sizeof(gpu::RasterParams),
             .set_layout = textures.layout});
    } catch (...) {
        release();
        throw;
    }
}

void RasterBackend::release() {
    for (PlaceDraws& draws : draws_) destroy_draws(device_, draws);
    vk::destroy_graphics_pipeline(device_, raster_);
    vk::destroy_compute_pipeline(device_, cull_);
    destroy_atlas_targets(device_, targets_);
}

void RasterBackend::scene_changed(std::uint32_t place, const GpuScene* scene) {
    destroy_draws(device_, draws_.at(place));
    if (!scene) return;
    const std::uint64_t max_draws = std::uint64_t{config_.views} * scene->chunk_count;
    BATCHSIM_CHECK(max_draws <= 0xffffffffull, Unsupported,
                   str(config_.views, " views of ", scene->chunk_count,
                       " chunks exceed the draw count limit"));
    draws_[place] = create_draws(device_, max_draws, scene->chunk_count, config_.batches);
}

gpu::ViewParams RasterBackend::view_params(std::uint32_t view_count) const {
    const float tan_x = std::tan(config_.hfov_degrees * std::numbers::pi_v<float> / 360.0f);
    gpu::ViewParams v{};
    v.tan_half_x = tan_x;
    v.tan_half_y = tan_x * static_cast<float>(config_.height) / static_cast<float>(config_.width);
    v.near_plane = config_.near_plane, v.far_plane = config_.far_plane;
    v.tiles_x = layout_.tiles_x, v.tile_width = config_.width, v.tile_height = config_.height;
    v.atlas_width = layout_.width, v.atlas_height = layout_.height;
    v.view_count = view_count;
    return v;
}

void RasterBackend::record(VkCommandBuffer commands, const BatchInputs& in) const {
    record_counter_reset(commands, in);
    record_culling(commands, in);
    record_timer_mark(commands, *in.profile, in.batch, TimerMark::Culled);
    record_statistics_begin(commands, *in.profile, in.batch);
    record_drawing(commands, in);
    record_statistics_end(commands, *in.profile, in.batch);
    record_timer_mark(commands, *in.profile, in.batch, TimerMark::Drawn);
    copy_atlas_to_tensors(device_, commands, targets_, layout_, in.views.first_view,
                          in.views.view_count, in.depth, in.rgb);
    record_timer_mark(commands, *in.profile, in.batch, TimerMark::Copied);
}

// The batch's draw counters to zero, before culling counts into them.
void RasterBackend::record_counter_reset(VkCommandBuffer commands, const BatchInputs& in) const {
    for (std::uint32_t p = 0; p < draws_.size(); ++p)
        if (in.scenes[p])
            vkCmdFillBuffer(commands, draws_[p].count.handle, VkDeviceSize{in.batch} * 4, 4, 0);
    vk::record_memory_barrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT,
                              VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

void RasterBackend::record_culling(VkCommandBuffer commands, const BatchInputs& in) const {
    const ViewBatch& views = in.views;
    for (std::uint32_t p = 0; p < draws_.size(); ++p) {
        if (!in.scenes[p]) continue;
        const GpuScene& scene = *in.scenes[p];
        const PlaceDraws& draws = draws_[p];
        const VkDeviceSize first_draw = VkDeviceSize{views.first_view} * draws.chunks;
        gpu::CullParams params{};
        params.poses = in.poses;
        params.chunks = scene.chunks.address;
        params.draws = draws.commands.address + first_draw * sizeof(gpu::DrawCommand);
        params.draw_infos = draws.infos.address + first_draw * sizeof(gpu::DrawInfo);
        params.draw_count = draws.count.address + VkDeviceSize{in.batch} * 4;
        params.chunk_count = scene.chunk_count;
        params.place = p;
        params.max_draws = views.view_count * draws.chunks;
        params.first_view = views.first_view;
        params.view = view_params(views.view_count);
        const std::uint64_t threads = std::uint64_t{views.view_count} * scene.chunk_count;
        const auto groups = static_cast<std::uint32_t>((threads + BATCHSIM_CULL_GROUP_SIZE - 1) /
                                                       BATCHSIM_CULL_GROUP_SIZE);
        vk::dispatch(commands, cull_, &params, std::max(groups, 1u));
    }
    vk::record_memory_barrier(
        commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
        VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT,
        VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_SHADER_READ_BIT);
}

void RasterBackend::record_drawing(VkCommandBuffer commands, const BatchInputs& in) const {
    const ViewBatch& views = in.views;
    begin_atlas_rendering(device_, commands, targets_, layout_, tiles_area(layout_, views));
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, raster_.handle);
    for (std::uint32_t p = 0; p < draws_.size(); ++p) {
        if (!in.scenes[p]) continue;
        const GpuScene& scene = *in.scenes[p];
        const PlaceDraws& draws = draws_[p];
        const VkDeviceSize first_draw = VkDeviceSize{views.first_view} * draws.chunks;
        gpu::RasterParams params{};
        params.poses = in.poses;
        params.vertices = scene.vertices.address;
        params.materials = scene.materials.address;
        params.draw_infos = draws.infos.address + first_draw * sizeof(gpu::DrawInfo);
        params.view = view_params(views.view_count);
        vkCmdPushConstants(commands, raster_.layout,
                           VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                           sizeof(params), &params);
        vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, raster_.layout, 0, 1,
                                &textures_.sets[p], 0, nullptr);
        vkCmdBindIndexBuffer(commands, scene.indices.handle, 0, VK_INDEX_TYPE_UINT32);
        vkCmdDrawIndexedIndirectCount(commands, draws.commands.handle,
                                      first_draw * sizeof(gpu::DrawCommand), draws.count.handle,
                                      VkDeviceSize{in.batch} * 4, views.view_count * draws.chunks,
                                      sizeof(gpu::DrawCommand));
    }
    end_atlas_rendering(device_, commands);
}

}  // namespace

std::unique_ptr<RenderBackend> create_raster_backend(const vk::Device& device,
                                                     const RendererConfig& config,
                                                     const TextureTable& textures) {
    return std::make_unique<RasterBackend>(device, config, textures);
}

}  // namespace batchsim::render
