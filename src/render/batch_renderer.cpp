#include "render/batch_renderer.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <vector>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "render/atlas.hpp"
#include "render/gpu_scene.hpp"
#include "render/texture_table.hpp"
#include "vk/embedded_shaders.hpp"
#include "vk/graphics_pipeline.hpp"
#include "vk/pipeline.hpp"

namespace batchsim::render {
namespace {

// The culling pass's output for one resident place.
struct PlaceDraws {
    vk::Buffer commands;  // DrawCommand[max_draws]
    vk::Buffer infos;     // DrawInfo[max_draws]
    vk::Buffer count;     // uint
    std::uint32_t max_draws = 0;
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

vk::Buffer device_buffer(const vk::Device& device, VkDeviceSize size, VkBufferUsageFlags usage) {
    return vk::create_buffer(device, {.size = std::max<VkDeviceSize>(size, 4),
                                      .usage = usage | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                      .location = vk::MemoryLocation::DeviceLocal});
}

PlaceDraws create_draws(const vk::Device& device, std::uint32_t max_draws) {
    PlaceDraws draws;
    draws.max_draws = max_draws;
    draws.commands = device_buffer(device, VkDeviceSize{max_draws} * sizeof(gpu::DrawCommand),
                                   VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT);
    draws.infos = device_buffer(device, VkDeviceSize{max_draws} * sizeof(gpu::DrawInfo), 0);
    draws.count = device_buffer(
        device, 4, VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    return draws;
}

void destroy_draws(const vk::Device& device, PlaceDraws& draws) {
    vk::destroy_buffer(device, draws.commands);
    vk::destroy_buffer(device, draws.infos);
    vk::destroy_buffer(device, draws.count);
    draws = PlaceDraws{};
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
    vk::Buffer poses;  // CameraPose[views], device-local, written with vkCmdUpdateBuffer
    std::vector<Place> places;
    std::shared_ptr<PersistentTensor> depth, rgb;

    Impl(std::shared_ptr<GpuContext> c, const RendererConfig& cfg);
    ~Impl();
    void release();  // every Vulkan object; safe on a partly built Impl
    [[nodiscard]] gpu::ViewParams view_params() const;
    void upload_poses(VkCommandBuffer commands, std::span<const gpu::CameraPose> poses) const;
    void record_culling(VkCommandBuffer commands) const;
    void record_drawing(VkCommandBuffer commands) const;
    void clear_place(std::uint32_t place);
};

BatchRenderer::Impl::Impl(std::shared_ptr<GpuContext> c, const RendererConfig& cfg)
    : context(std::move(c)), config(cfg), device(context->device()) {
    require_features(device);
    layout = atlas_layout(device, config.views, config.width, config.height);
    places.resize(config.places);
    try {
        targets = create_atlas_targets(device, layout);
        textures = create_texture_table(device, config.places);
        cull = vk::create_compute_pipeline(device, vk::embedded_shader("cull.comp"),
                                           sizeof(gpu::CullParams));
        raster = vk::create_graphics_pipeline(
            device, {.vertex_spirv = vk::embedded_shader("raster.vert"),
                     .fragment_spirv = vk::embedded_shader("raster.frag"),
                     .color_formats = {kDepthTargetFormat, kColorTargetFormat},
                     .depth_format = kZBufferFormat,
                     .push_constant_size = sizeof(gpu::RasterParams),
                     .set_layout = textures.layout});
        poses = device_buffer(device, VkDeviceSize{config.views} * sizeof(gpu::CameraPose),
                              VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    } catch (...) {
        release();
        throw;
    }
    const auto n = static_cast<std::int64_t>(config.views);
    const auto h = static_cast<std::int64_t>(config.height), w = std::int64_t(config.width);
    depth = PersistentTensor::create(context, {n, 1, h, w}, DType::Float32);
    rgb = PersistentTensor::create(context, {n, h, w, 4}, DType::UInt8);
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
    vk::destroy_buffer(device, poses);
    vk::destroy_graphics_pipeline(device, raster);
    vk::destroy_compute_pipeline(device, cull);
    destroy_texture_table(device, textures);
    destroy_atlas_targets(device, targets);
}

gpu::ViewParams BatchRenderer::Impl::view_params() const {
    const float tan_x = std::tan(config.hfov_degrees * std::numbers::pi_v<float> / 360.0f);
    gpu::ViewParams v{};
    v.tan_half_x = tan_x;
    v.tan_half_y = tan_x * static_cast<float>(config.height) / static_cast<float>(config.width);
    v.near_plane = config.near_plane, v.far_plane = config.far_plane;
    v.tiles_x = layout.tiles_x, v.tile_width = config.width, v.tile_height = config.height;
    v.atlas_width = layout.width, v.atlas_height = layout.height;
    v.view_count = config.views;
    return v;
}

void BatchRenderer::Impl::upload_poses(VkCommandBuffer commands,
                                       std::span<const gpu::CameraPose> given) const {
    // vkCmdUpdateBuffer copies the data into the command buffer: no host buffer to race with.
    constexpr std::size_t kMaxUpdate = 65536;
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(given.data());
    for (std::size_t offset = 0; offset < given.size_bytes(); offset += kMaxUpdate) {
        const std::size_t size = std::min(kMaxUpdate, given.size_bytes() - offset);
        vkCmdUpdateBuffer(commands, poses.handle, offset, size, bytes + offset);
    }
    for (const Place& place : places)
        if (place.scene) vkCmdFillBuffer(commands, place.draws.count.handle, 0, 4, 0);
    memory_barrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

void BatchRenderer::Impl::record_culling(VkCommandBuffer commands) const {
    for (std::uint32_t p = 0; p < places.size(); ++p) {
        const Place& place = places[p];
        if (!place.scene) continue;
        gpu::CullParams params{};
        params.poses = poses.address;
        params.chunks = place.scene->chunks.address;
        params.draws = place.draws.commands.address;
        params.draw_infos = place.draws.infos.address;
        params.draw_count = place.draws.count.address;
        params.chunk_count = place.scene->chunk_count;
        params.place = p;
        params.max_draws = place.draws.max_draws;
        params.view = view_params();
        const std::uint64_t threads = std::uint64_t{config.views} * place.scene->chunk_count;
        const auto groups = static_cast<std::uint32_t>((threads + BATCHSIM_CULL_GROUP_SIZE - 1) /
                                                       BATCHSIM_CULL_GROUP_SIZE);
        vk::dispatch(commands, cull, &params, std::max(groups, 1u));
    }
    memory_barrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT,
                   VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_SHADER_READ_BIT);
}

void BatchRenderer::Impl::record_drawing(VkCommandBuffer commands) const {
    begin_atlas_rendering(device, commands, targets, layout);
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, raster.handle);
    for (std::uint32_t p = 0; p < places.size(); ++p) {
        const Place& place = places[p];
        if (!place.scene) continue;
        gpu::RasterParams params{};
        params.poses = poses.address;
        params.vertices = place.scene->vertices.address;
        params.materials = place.scene->materials.address;
        params.draw_infos = place.draws.infos.address;
        params.view = view_params();
        vkCmdPushConstants(commands, raster.layout,
                           VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                           sizeof(params), &params);
        vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, raster.layout, 0, 1,
                                &textures.sets[p], 0, nullptr);
        vkCmdBindIndexBuffer(commands, place.scene->indices.handle, 0, VK_INDEX_TYPE_UINT32);
        vkCmdDrawIndexedIndirectCount(commands, place.draws.commands.handle, 0,
                                      place.draws.count.handle, 0, place.draws.max_draws,
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
    target.draws = create_draws(s.device, static_cast<std::uint32_t>(max_draws));
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
    for (std::size_t i = 0; i < poses.size(); ++i)
        BATCHSIM_CHECK(poses[i].resident_scene < s.places.size(), InvalidArgument,
                       str("view ", i, " names resident place ", poses[i].resident_scene,
                           "; there are ", s.places.size()));
    auto recording = s.context->begin();
    const VkCommandBuffer commands = recording.commands();
    s.upload_poses(commands, poses);
    s.record_culling(commands);
    s.record_drawing(commands);
    copy_atlas_to_tensors(s.device, commands, s.targets, s.layout, *s.depth, *s.rgb);
    s.context->submit(recording, cuda_stream);
}

const std::shared_ptr<PersistentTensor>& BatchRenderer::depth() const {
    return impl_->depth;
}

const std::shared_ptr<PersistentTensor>& BatchRenderer::rgb() const {
    return impl_->rgb;
}

}  // namespace batchsim::render
