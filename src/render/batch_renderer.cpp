#include "render/batch_renderer.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <vector>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "render/atlas.hpp"
#include "render/draw_buffers.hpp"
#include "render/gpu_scene.hpp"
#include "render/texture_table.hpp"
#include "render/view_batches.hpp"
#include "vk/embedded_shaders.hpp"
#include "vk/graphics_pipeline.hpp"
#include "vk/pipeline.hpp"

namespace batchsim::render {
namespace {

// A contiguous range of views with its command buffer, recorded once.
struct Batch {
    ViewBatch views;
    VkCommandBuffer commands = VK_NULL_HANDLE;
    std::uint64_t done_at = 0;  // timeline value of its last submission
};

struct Place {
    std::optional<GpuScene> scene;
    PlaceDraws draws;
};

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

void memory_barrier(VkCommandBuffer commands, VkPipelineStageFlags src_stage,
                    VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                    VkAccessFlags dst_access) {
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = src_access;
    barrier.dstAccessMask = dst_access;
    vkCmdPipelineBarrier(commands, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

}  // namespace

void validate(const RendererConfig& c) {
    BATCHSIM_CHECK(c.views >= 1, InvalidArgument, str("views must be >= 1, got ", c.views));
    BATCHSIM_CHECK(c.width >= 1 && c.height >= 1 && c.width <= 4096 && c.height <= 4096,
                   InvalidArgument,
                   str("resolution must be within 1..4096, got ", c.width, " x ", c.height));
    BATCHSIM_CHECK(std::isfinite(c.hfov_degrees) && c.hfov_degrees > 0 && c.hfov_degrees < 180,
                   InvalidArgument, str("hfov must be in (0, 180) degrees, got ", c.hfov_degrees));
    BATCHSIM_CHECK(std::isfinite(c.near_plane) && std::isfinite(c.far_plane) && c.near_plane > 0 &&
                       c.far_plane > c.near_plane,
                   InvalidArgument,
                   str("need 0 < near < far, got near ", c.near_plane, " far ", c.far_plane));
    BATCHSIM_CHECK(c.places >= 1 && c.places <= 256, InvalidArgument,
                   str("places must be in 1..256, got ", c.places));
    BATCHSIM_CHECK(c.batches >= 1 && c.batches <= c.views, InvalidArgument,
                   str("batches must be within 1..views (", c.views, "), got ", c.batches));
    BATCHSIM_CHECK(c.depth || c.rgb, InvalidArgument,
                   "a renderer needs at least one output: depth, rgb or both");
}

struct BatchRenderer::Impl {
    std::shared_ptr<GpuContext> context;
    RendererConfig config;
    const vk::Device& device;
    AtlasLayout layout;
    AtlasTargets targets;
    TextureTable textures;
    vk::ComputePipeline cull;
    vk::GraphicsPipeline raster;
    vk::Buffer staged_poses;  // CameraPose[views], host-visible: written by submit()
    vk::Buffer poses;         // CameraPose[views], device-local: what the shaders read
    std::vector<Place> places;
    VkCommandPool command_pool = VK_NULL_HANDLE;
    std::vector<Batch> batches;
    bool recorded = false;  // the batches' commands match the resident scenes
    GpuProfile profile;
    std::shared_ptr<PersistentTensor> depth, rgb;

    Impl(std::shared_ptr<GpuContext> c, const RendererConfig& cfg);
    ~Impl();
    void create_objects();
    void release();  // every Vulkan object; safe on a partly built Impl
    [[nodiscard]] gpu::ViewParams view_params(std::uint32_t view_count) const;
    void record_all();
    void record_batch(std::uint32_t b) const;
    void record_upload(VkCommandBuffer commands, std::uint32_t b) const;
    void record_culling(VkCommandBuffer commands, std::uint32_t b) const;
    void record_drawing(VkCommandBuffer commands, std::uint32_t b) const;
    void clear_place(std::uint32_t place);

    // Throws Error(InvalidArgument) for an index past the last batch.
    [[nodiscard]] Batch& batch(std::uint32_t b) {
        check_batch_index(b);
        return batches[b];
    }
    [[nodiscard]] const Batch& batch(std::uint32_t b) const {
        check_batch_index(b);
        return batches[b];
    }
    void check_batch_index(std::uint32_t b) const {
        BATCHSIM_CHECK(b < batches.size(), InvalidArgument,
                       str("batch must be below ", batches.size(), ", got ", b));
    }
};

BatchRenderer::Impl::Impl(std::shared_ptr<GpuContext> c, const RendererConfig& cfg)
    : context(std::move(c)), config(cfg), device(context->device()) {
    require_features(device);
    layout = atlas_layout(device, config.views, config.width, config.height);
    places.resize(config.places);
    try {
        create_objects();
    } catch (...) {
        release();
        throw;
    }
    const auto n = static_cast<std::int64_t>(config.views);
    const auto h = static_cast<std::int64_t>(config.height), w = std::int64_t(config.width);
    if (config.depth) depth = PersistentTensor::create(context, {n, 1, h, w}, DType::Float32);
    if (config.rgb) rgb = PersistentTensor::create(context, {n, h, w, 4}, DType::UInt8);
}

void BatchRenderer::Impl::create_objects() {
    targets = create_atlas_targets(device, layout, {.depth = config.depth, .rgb = config.rgb});
    textures = create_texture_table(device, config.places);
    cull = vk::create_compute_pipeline(device, vk::embedded_shader("cull.comp"),
                                       sizeof(gpu::CullParams));
    raster = vk::create_graphics_pipeline(
        device,
        {.vertex_spirv = vk::embedded_shader(config.rgb ? "raster.vert" : "raster_depth.vert"),
         .fragment_spirv = vk::embedded_shader(fragment_shader(config)),
         .color_formats = target_formats(config),
         .depth_format = kZBufferFormat,
         .push_constant_size = sizeof(gpu::RasterParams),
         .set_layout = textures.layout});
    const VkDeviceSize pose_bytes = VkDeviceSize{config.views} * sizeof(gpu::CameraPose);
    staged_poses = vk::create_buffer(device, {.size = pose_bytes,
                                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                              .location = vk::MemoryLocation::HostVisible});
    poses = device_buffer(device, pose_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    command_pool = create_command_pool(device);
    const auto ranges = split_views(layout, config.batches);
    const auto buffers = allocate_commands(device, command_pool, config.batches);
    for (std::uint32_t b = 0; b < config.batches; ++b)
        batches.push_back({.views = ranges[b], .commands = buffers[b]});
    profile = create_gpu_profile(device, config.batches);
}

BatchRenderer::Impl::~Impl() {
    try {
        context->wait_idle();
    } catch (const Error&) {
        // A lost device: release anyway.
    }
    release();
}

void BatchRenderer::Impl::release() {
    for (std::uint32_t p = 0; p < places.size(); ++p) clear_place(p);
    destroy_gpu_profile(device, profile);
    // Destroying the pool frees the batches' command buffers.
    if (command_pool != VK_NULL_HANDLE) vkDestroyCommandPool(device.handle, command_pool, nullptr);
    command_pool = VK_NULL_HANDLE;
    batches.clear();
    vk::destroy_buffer(device, poses);
    vk::destroy_buffer(device, staged_poses);
    vk::destroy_graphics_pipeline(device, raster);
    vk::destroy_compute_pipeline(device, cull);
    destroy_texture_table(device, textures);
    destroy_atlas_targets(device, targets);
}

gpu::ViewParams BatchRenderer::Impl::view_params(std::uint32_t view_count) const {
    const float tan_x = std::tan(config.hfov_degrees * std::numbers::pi_v<float> / 360.0f);
    gpu::ViewParams v{};
    v.tan_half_x = tan_x;
    v.tan_half_y = tan_x * static_cast<float>(config.height) / static_cast<float>(config.width);
    v.near_plane = config.near_plane, v.far_plane = config.far_plane;
    v.tiles_x = layout.tiles_x, v.tile_width = config.width, v.tile_height = config.height;
    v.atlas_width = layout.width, v.atlas_height = layout.height;
    v.view_count = view_count;
    return v;
}

// Called with nothing in flight (set_scene waited): re-records every batch.
void BatchRenderer::Impl::record_all() {
    context->wait_idle();
    VK_CHECK(vkResetCommandPool(device.handle, command_pool, 0));
    for (std::uint32_t b = 0; b < batches.size(); ++b) record_batch(b);
    recorded = true;
}

void BatchRenderer::Impl::record_batch(std::uint32_t b) const {
    const Batch& batch = batches[b];
    const VkCommandBuffer commands = batch.commands;
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_CHECK(vkBeginCommandBuffer(commands, &begin));
    record_profile_reset(commands, profile, b);
    record_timer_mark(commands, profile, b, TimerMark::Start);
    record_upload(commands, b);
    record_timer_mark(commands, profile, b, TimerMark::Uploaded);
    record_culling(commands, b);
    record_timer_mark(commands, profile, b, TimerMark::Culled);
    record_statistics_begin(commands, profile, b);
    record_drawing(commands, b);
    record_statistics_end(commands, profile, b);
    record_timer_mark(commands, profile, b, TimerMark::Drawn);
    copy_atlas_to_tensors(device, commands, targets, layout, batch.views.first_view,
                          batch.views.view_count, depth.get(), rgb.get());
    record_timer_mark(commands, profile, b, TimerMark::Copied);
    VK_CHECK(vkEndCommandBuffer(commands));
}

// The batch's poses from the host-visible copy submit() wrote; its draw counters to zero.
void BatchRenderer::Impl::record_upload(VkCommandBuffer commands, std::uint32_t b) const {
    const ViewBatch& views = batches[b].views;
    VkBufferCopy region{};
    region.srcOffset = region.dstOffset = VkDeviceSize{views.first_view} * sizeof(gpu::CameraPose);
    region.size = VkDeviceSize{views.view_count} * sizeof(gpu::CameraPose);
    vkCmdCopyBuffer(commands, staged_poses.handle, poses.handle, 1, &region);
    for (const Place& place : places)
        if (place.scene)
            vkCmdFillBuffer(commands, place.draws.count.handle, VkDeviceSize{b} * 4, 4, 0);
    memory_barrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

void BatchRenderer::Impl::record_culling(VkCommandBuffer commands, std::uint32_t b) const {
    const ViewBatch& views = batches[b].views;
    for (std::uint32_t p = 0; p < places.size(); ++p) {
        const Place& place = places[p];
        if (!place.scene) continue;
        const VkDeviceSize first_draw = VkDeviceSize{views.first_view} * place.draws.chunks;
        gpu::CullParams params{};
        params.poses = poses.address;
        params.chunks = place.scene->chunks.address;
        params.draws = place.draws.commands.address + first_draw * sizeof(gpu::DrawCommand);
        params.draw_infos = place.draws.infos.address + first_draw * sizeof(gpu::DrawInfo);
        params.draw_count = place.draws.count.address + VkDeviceSize{b} * 4;
        params.chunk_count = place.scene->chunk_count;
        params.place = p;
        params.max_draws = views.view_count * place.draws.chunks;
        params.first_view = views.first_view;
        params.view = view_params(views.view_count);
        const std::uint64_t threads = std::uint64_t{views.view_count} * place.scene->chunk_count;
        const auto groups = static_cast<std::uint32_t>((threads + BATCHSIM_CULL_GROUP_SIZE - 1) /
                                                       BATCHSIM_CULL_GROUP_SIZE);
        vk::dispatch(commands, cull, &params, std::max(groups, 1u));
    }
    memory_barrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT,
                   VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_SHADER_READ_BIT);
}

void BatchRenderer::Impl::record_drawing(VkCommandBuffer commands, std::uint32_t b) const {
    const ViewBatch& views = batches[b].views;
    begin_atlas_rendering(device, commands, targets, layout, views.area);
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, raster.handle);
    for (std::uint32_t p = 0; p < places.size(); ++p) {
        const Place& place = places[p];
        if (!place.scene) continue;
        const VkDeviceSize first_draw = VkDeviceSize{views.first_view} * place.draws.chunks;
        gpu::RasterParams params{};
        params.poses = poses.address;
        params.vertices = place.scene->vertices.address;
        params.materials = place.scene->materials.address;
        params.draw_infos = place.draws.infos.address + first_draw * sizeof(gpu::DrawInfo);
        params.view = view_params(views.view_count);
        vkCmdPushConstants(commands, raster.layout,
                           VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                           sizeof(params), &params);
        vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, raster.layout, 0, 1,
                                &textures.sets[p], 0, nullptr);
        vkCmdBindIndexBuffer(commands, place.scene->indices.handle, 0, VK_INDEX_TYPE_UINT32);
        vkCmdDrawIndexedIndirectCount(
            commands, place.draws.commands.handle, first_draw * sizeof(gpu::DrawCommand),
            place.draws.count.handle, VkDeviceSize{b} * 4, views.view_count * place.draws.chunks,
            sizeof(gpu::DrawCommand));
    }
    end_atlas_rendering(device, commands);
}

void BatchRenderer::Impl::clear_place(std::uint32_t p) {
    Place& place = places.at(p);
    if (!textures.sets.empty()) bind_scene_textures(device, textures, p, nullptr);
    if (place.scene) destroy_gpu_scene(device, *place.scene);
    place.scene.reset();
    destroy_draws(device, place.draws);
    recorded = false;
}

BatchRenderer::BatchRenderer(std::shared_ptr<GpuContext> context, const RendererConfig& config) {
    BATCHSIM_CHECK(context != nullptr, InvalidArgument, "BatchRenderer needs a GpuContext");
    validate(config);
    impl_ = std::make_unique<Impl>(std::move(context), config);
}

BatchRenderer::~BatchRenderer() = default;

const RendererConfig& BatchRenderer::config() const {
    return impl_->config;
}

void BatchRenderer::set_scene(std::uint32_t place, const assets::PackedScene* scene) {
    Impl& s = *impl_;
    BATCHSIM_CHECK(place < s.places.size(), InvalidArgument,
                   str("place must be below ", s.places.size(), ", got ", place));
    s.context->wait_idle();  // the GPU may still draw what is there
    s.clear_place(place);
    if (!scene) return;
    Place& target = s.places[place];
    target.scene = create_gpu_scene(s.device, *scene);
    const std::uint64_t max_draws = std::uint64_t{s.config.views} * target.scene->chunk_count;
    BATCHSIM_CHECK(max_draws <= 0xffffffffull, Unsupported,
                   str(s.config.views, " views of ", target.scene->chunk_count,
                       " chunks exceed the draw count limit"));
    target.draws = create_draws(s.device, max_draws, target.scene->chunk_count, s.config.batches);
    bind_scene_textures(s.device, s.textures, place, &*target.scene);
}

std::size_t BatchRenderer::scene_bytes(std::uint32_t place) const {
    const Place& p = impl_->places.at(place);
    return p.scene ? static_cast<std::size_t>(p.scene->bytes()) : 0;
}

void BatchRenderer::render(std::span<const gpu::CameraPose> poses, std::uintptr_t cuda_stream) {
    Impl& s = *impl_;
    BATCHSIM_CHECK(poses.size() == s.config.views, InvalidArgument,
                   str("expected ", s.config.views, " camera poses, got ", poses.size()));
    for (std::uint32_t b = 0; b < s.batches.size(); ++b) {
        const ViewBatch& views = s.batches[b].views;
        submit(b, poses.subspan(views.first_view, views.view_count), cuda_stream);
    }
    if (!s.context->exports_cuda())
        for (std::uint32_t b = 0; b < s.batches.size(); ++b) wait(b);
}

std::uint32_t BatchRenderer::batch_count() const {
    return static_cast<std::uint32_t>(impl_->batches.size());
}

ViewRange BatchRenderer::batch_views(std::uint32_t batch) const {
    const ViewBatch& views = impl_->batch(batch).views;
    return {views.first_view, views.view_count};
}

void BatchRenderer::submit(std::uint32_t batch, std::span<const gpu::CameraPose> poses,
                           std::uintptr_t cuda_stream) {
    Impl& s = *impl_;
    const ViewRange range = batch_views(batch);
    BATCHSIM_CHECK(poses.size() == range.count, InvalidArgument,
                   str("batch ", batch, " has ", range.count, " views (", range.first, "..",
                       range.first + range.count - 1, "); got ", poses.size(), " camera poses"));
    for (std::size_t i = 0; i < poses.size(); ++i)
        BATCHSIM_CHECK(poses[i].resident_scene < s.places.size(), InvalidArgument,
                       str("view ", range.first + i, " names resident place ",
                           poses[i].resident_scene, "; there are ", s.places.size()));
    if (!s.recorded) s.record_all();
    Batch& target = s.batch(batch);
    s.context->wait_for(target.done_at);  // its command buffer and staged poses are free
    auto* staged = static_cast<gpu::CameraPose*>(s.staged_poses.mapped) + range.first;
    std::copy(poses.begin(), poses.end(), staged);
    target.done_at = s.context->submit_recorded(target.commands, cuda_stream);
}

void BatchRenderer::wait(std::uint32_t batch) {
    impl_->context->wait_for(impl_->batch(batch).done_at);
}

std::optional<PassTimes> BatchRenderer::pass_times(std::uint32_t batch) const {
    const Impl& s = *impl_;
    if (s.batch(batch).done_at == 0) return std::nullopt;
    return read_pass_times(s.device, s.profile, batch);
}

std::optional<DrawStatistics> BatchRenderer::draw_statistics(std::uint32_t batch) const {
    const Impl& s = *impl_;
    if (s.batch(batch).done_at == 0) return std::nullopt;
    return read_draw_statistics(s.device, s.profile, batch);
}

const std::shared_ptr<PersistentTensor>& BatchRenderer::depth() const {
    return impl_->depth;
}

const std::shared_ptr<PersistentTensor>& BatchRenderer::rgb() const {
    return impl_->rgb;
}

const std::shared_ptr<GpuContext>& BatchRenderer::context() const {
    return impl_->context;
}

}  // namespace batchsim::render
