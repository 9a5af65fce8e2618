#include "render/batch_renderer.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>
#include <optional>
#include <vector>

#include "core/check.hpp"
#include "core/choice.hpp"
#include "core/strings.hpp"
#include "render/draw_buffers.hpp"
#include "render/gpu_scene.hpp"
#include "render/render_backend.hpp"
#include "render/texture_table.hpp"
#include "render/view_batches.hpp"
#include "vk/sync.hpp"

namespace batchsim::render {
namespace {

// A contiguous range of views with its command buffer, recorded once.
struct Batch {
    ViewBatch views;
    VkCommandBuffer commands = VK_NULL_HANDLE;
    std::uint64_t done_at = 0;  // timeline value of its last submission
    // Pass times of its last render seen finished (by wait() or the next submit()), and that
    // render's done_at: read once, then kept while the next render reuses the queries.
    std::optional<PassTimes> finished_times;
    std::uint64_t finished_at = 0;
};

std::unique_ptr<RenderBackend> create_backend(const vk::Device& device,
                                              const RendererConfig& config,
                                              const TextureTable& textures) {
    if (config.backend == Backend::Compute) return create_compute_backend(device, config, textures);
    return create_raster_backend(device, config, textures);
}

constexpr std::array<Choice<Backend>, 3> kBackends{
    {{"auto", Backend::Auto}, {"raster", Backend::Raster}, {"compute", Backend::Compute}}};

}  // namespace

const char* backend_name(Backend backend) {
    return choice_name<Backend>(backend, kBackends);
}

Backend parse_backend(std::string_view name) {
    return parse_choice<Backend>(name, "backend", kBackends);
}

// The rule for Auto. The compute backend needs nothing beyond what every device batchsim
// runs on has (compute shaders, buffer device addresses, sampled images). On the H200,
// whose graphics front end is the raster backend's limit, it measured 40-154x faster
// (N = 1,024-4,096 views, 64x64-128x128, depth and RGB). On lavapipe the two are close and the
// winner depends on the scenes: compute up to 2.2x faster on 150k-triangle scenes at 64x64,
// raster ~1.4x faster on the demo's 10k-triangle scenes at 32x32. One rule keeps results
// alike across machines; pass backend=raster where it measures faster.
Backend choose_backend(const vk::Device& /*device*/) {
    return Backend::Compute;
}

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
    BATCHSIM_CHECK(c.places >= 1 && c.places <= kMaxPlaces, InvalidArgument,
                   str("places must be in 1..", kMaxPlaces, ", got ", c.places));
    BATCHSIM_CHECK(c.batches >= 1 && c.batches <= c.views, InvalidArgument,
                   str("batches must be within 1..views (", c.views, "), got ", c.batches));
    BATCHSIM_CHECK(c.depth || c.rgb, InvalidArgument,
                   "a renderer needs at least one output: depth, rgb or both");
}

struct BatchRenderer::Impl {
    std::shared_ptr<device::GpuContext> context;
    RendererConfig config;
    const vk::Device& device;
    TextureTable textures;
    std::unique_ptr<RenderBackend> backend;
    vk::Buffer staged_poses;  // CameraPose[views], host-visible: written by submit()
    vk::Buffer poses;         // CameraPose[views], device-local: what the shaders read
    std::vector<std::optional<GpuScene>> scenes;  // by place
    VkCommandPool command_pool = VK_NULL_HANDLE;
    std::vector<Batch> batches;
    bool recorded = false;  // the batches' commands match the resident scenes
    GpuProfile profile;
    mutable std::mutex finished_mutex;  // Batch::finished_*: written by steps, read by callers
    std::shared_ptr<device::PersistentTensor> depth, rgb;
    BatchRenderer::BatchCopies batch_copies;

    Impl(std::shared_ptr<device::GpuContext> c, const RendererConfig& cfg);
    ~Impl();
    void create_objects();
    void release();  // every Vulkan object; safe on a partly built Impl
    void record_all();
    void record_batch(std::uint32_t b) const;
    void note_finished(Batch& b, std::uint32_t index);
    void record_upload(VkCommandBuffer commands, std::uint32_t b) const;
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

BatchRenderer::Impl::Impl(std::shared_ptr<device::GpuContext> c, const RendererConfig& cfg)
    : context(std::move(c)), config(cfg), device(context->device()) {
    if (config.backend == Backend::Auto) config.backend = choose_backend(device);
    scenes.resize(config.places);
    const auto n = static_cast<std::int64_t>(config.views);
    const auto h = static_cast<std::int64_t>(config.height), w = std::int64_t(config.width);
    try {
        create_objects();
        // The compute backend writes the tensors from shaders: created before recording.
        if (config.depth)
            depth = device::PersistentTensor::create(context, {n, 1, h, w}, device::DType::Float32);
        if (config.rgb)
            rgb = device::PersistentTensor::create(context, {n, h, w, 4}, device::DType::UInt8);
    } catch (...) {
        release();
        throw;
    }
}

void BatchRenderer::Impl::create_objects() {
    textures = create_texture_table(device, config.places);
    backend = create_backend(device, config, textures);
    const VkDeviceSize pose_bytes = VkDeviceSize{config.views} * sizeof(gpu::CameraPose);
    staged_poses = vk::create_buffer(device, {.size = pose_bytes,
                                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                              .location = vk::MemoryLocation::HostVisible});
    poses = device_buffer(device, pose_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    command_pool = create_command_pool(device);
    const auto ranges = split_views(config.views, config.batches);
    const auto buffers = allocate_commands(device, command_pool, config.batches);
    for (std::uint32_t b = 0; b < config.batches; ++b)
        batches.push_back({.views = ranges[b], .commands = buffers[b]});
    profile = create_gpu_profile(device, config.batches);
}

BatchRenderer::Impl::~Impl() {
    if (context->settle("the renderer's buffers, images and pipelines")) {
        release();
    } else {
        static_cast<void>(backend.release());  // its destructor would free its pipelines
    }
}

void BatchRenderer::Impl::release() {
    for (std::uint32_t p = 0; p < scenes.size(); ++p) clear_place(p);
    destroy_gpu_profile(device, profile);
    // Destroying the pool frees the batches' command buffers.
    if (command_pool != VK_NULL_HANDLE) vkDestroyCommandPool(device.handle, command_pool, nullptr);
    command_pool = VK_NULL_HANDLE;
    batches.clear();
    vk::destroy_buffer(device, poses);
    vk::destroy_buffer(device, staged_poses);
    backend.reset();
    destroy_texture_table(device, textures);
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
    if (batch_copies) batch_copies(commands, {batch.views.first_view, batch.views.view_count});
    record_timer_mark(commands, profile, b, TimerMark::Uploaded);
    backend->record(commands, {.batch = b,
                               .views = batch.views,
                               .poses = poses.address,
                               .scenes = scenes,
                               .textures = &textures,
                               .profile = &profile,
                               .depth = depth.get(),
                               .rgb = rgb.get()});
    VK_CHECK(vkEndCommandBuffer(commands));
}

// The batch's poses from the host-visible copy submit() wrote.
void BatchRenderer::Impl::record_upload(VkCommandBuffer commands, std::uint32_t b) const {
    const ViewBatch& views = batches[b].views;
    VkBufferCopy region{};
    region.srcOffset = region.dstOffset = VkDeviceSize{views.first_view} * sizeof(gpu::CameraPose);
    region.size = VkDeviceSize{views.view_count} * sizeof(gpu::CameraPose);
    vkCmdCopyBuffer(commands, staged_poses.handle, poses.handle, 1, &region);
    vk::record_memory_barrier(
        commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT,
        VK_ACCESS_SHADER_READ_BIT);
}

void BatchRenderer::Impl::clear_place(std::uint32_t p) {
    std::optional<GpuScene>& scene = scenes.at(p);
    if (!textures.sets.empty()) bind_scene_textures(device, textures, p, nullptr);
    if (backend) backend->scene_changed(p, nullptr);
    if (scene) destroy_gpu_scene(device, *scene);
    scene.reset();
    recorded = false;
}

BatchRenderer::BatchRenderer(std::shared_ptr<device::GpuContext> context,
                             const RendererConfig& config) {
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
    BATCHSIM_CHECK(place < s.scenes.size(), InvalidArgument,
                   str("place must be below ", s.scenes.size(), ", got ", place));
    s.context->wait_idle();  // the GPU may still draw what is there
    s.clear_place(place);
    if (!scene) return;
    std::optional<GpuScene>& target = s.scenes[place];
    target = create_gpu_scene(s.device, *scene, {.bvh = s.backend->needs_bvh()});
    try {
        s.backend->scene_changed(place, &*target);
        bind_scene_textures(s.device, s.textures, place, &*target);
    } catch (...) {
        s.clear_place(place);
        throw;
    }
}

void BatchRenderer::set_batch_copies(BatchCopies record) {
    impl_->batch_copies = std::move(record);
    impl_->recorded = false;
}

std::size_t BatchRenderer::scene_bytes(std::uint32_t place, bool textures_only) const {
    const std::optional<GpuScene>& scene = impl_->scenes.at(place);
    if (!scene) return 0;
    return static_cast<std::size_t>(textures_only ? scene->texture_bytes() : scene->bytes());
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
        BATCHSIM_CHECK(poses[i].resident_scene < s.scenes.size(), InvalidArgument,
                       str("view ", range.first + i, " names resident place ",
                           poses[i].resident_scene, "; there are ", s.scenes.size()));
    if (!s.recorded) s.record_all();
    Batch& target = s.batch(batch);
    // Its command buffer and staged poses are free once its last render is done.
    s.context->wait_for(target.done_at, "the last render of the batch");
    s.note_finished(target, batch);
    auto* staged = static_cast<gpu::CameraPose*>(s.staged_poses.mapped) + range.first;
    std::copy(poses.begin(), poses.end(), staged);
    target.done_at = s.context->submit_recorded(target.commands, cuda_stream);
}

void BatchRenderer::wait(std::uint32_t batch) {
    Batch& target = impl_->batch(batch);
    impl_->context->wait_for(target.done_at, "the batch's render");
    impl_->note_finished(target, batch);
}

// Call once the batch's last submission has finished.
void BatchRenderer::Impl::note_finished(Batch& b, std::uint32_t index) {
    if (b.done_at == 0 || b.finished_at == b.done_at) return;
    std::optional<PassTimes> times = read_pass_times(device, profile, index);
    const std::lock_guard lock(finished_mutex);
    b.finished_times = times;
    b.finished_at = b.done_at;
}

std::optional<PassTimes> BatchRenderer::pass_times(std::uint32_t batch) const {
    const Impl& s = *impl_;
    const std::lock_guard lock(s.finished_mutex);
    return s.batch(batch).finished_times;
}

std::optional<DrawStatistics> BatchRenderer::draw_statistics(std::uint32_t batch) const {
    const Impl& s = *impl_;
    if (s.batch(batch).done_at == 0 || !s.backend->records_draw_statistics()) return std::nullopt;
    return read_draw_statistics(s.device, s.profile, batch);
}

const std::shared_ptr<device::PersistentTensor>& BatchRenderer::depth() const {
    return impl_->depth;
}

const std::shared_ptr<device::PersistentTensor>& BatchRenderer::rgb() const {
    return impl_->rgb;
}

const std::shared_ptr<device::GpuContext>& BatchRenderer::context() const {
    return impl_->context;
}

}  // namespace batchsim::render
