#include "env/simulator.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "device/copies.hpp"
#include "env/memory_plan.hpp"
#include "sim/outputs.hpp"
#include "sim/scene_loader.hpp"

namespace batchsim::env {
namespace {

// Places of the renderer for `sim`'s resident scenes: two per slot, the scene drawn and the
// next one loading behind it. Checked here, where scenes_resident is the user's word (the
// renderer's own check could only say "places ... got 2000").
std::uint32_t render_places(const sim::SimConfig& sim) {
    constexpr int kMostResident = static_cast<int>(render::kMaxPlaces / 2);
    BATCHSIM_CHECK(sim.scenes_resident >= 1 && sim.scenes_resident <= kMostResident,
                   InvalidArgument,
                   str("scenes_resident: expected 1..", kMostResident,
                       " for a rendering simulator, got ", sim.scenes_resident,
                       ": the renderer holds each resident scene at two places (the one drawn "
                       "and the next one loading behind it) and has at most ",
                       render::kMaxPlaces,
                       ". A dataset of more scenes still runs: each slot moves on "
                       "to another scene (steps_per_scene)"));
    return static_cast<std::uint32_t>(2 * sim.scenes_resident);
}

render::RendererConfig renderer_config(const sim::SimConfig& sim, const RenderOptions& o) {
    return {.views = static_cast<std::uint32_t>(sim.num_envs),
            .width = o.width,
            .height = o.height,
            .hfov_degrees = o.hfov_degrees,
            .near_plane = o.near_plane,
            .far_plane = o.far_plane,
            .places = render_places(sim),
            .batches = o.double_buffer && sim.num_envs >= 2 ? 2U : 1U,
            .depth = o.depth,
            .rgb = o.rgb,
            .backend = o.backend};
}

// Refuses a configuration that cannot fit before anything is allocated (memory_plan.hpp).
void check_memory(const device::GpuContext& context, const sim::SimConfig& sim,
                  const RenderOptions& render, std::span<const std::filesystem::path> scenes) {
    const render::Backend backend = render.backend == render::Backend::Auto
                                        ? render::choose_backend(context.device())
                                        : render.backend;
    const MemoryNeeds needs =
        estimate_memory(sim, render, backend, !context.exports_cuda(), scene_sizes(scenes));
    const MemoryBudget budget{context.device_local_available(), host_available_bytes()};
    check_fits(needs, budget, sim.num_envs, sim.scenes_resident);
}

// A bare .navmesh has nothing to render: every depth and RGB view of it would be blank, and
// an agent would train on blank views without a word (issue 40).
void check_scenes_render(std::span<const std::filesystem::path> scenes) {
    std::vector<std::string> bare;
    for (const auto& scene : scenes)
        if (!sim::has_geometry(scene)) bare.push_back(scene.string());
    constexpr std::size_t kListed = 5;
    const std::size_t more = bare.size() > kListed ? bare.size() - kListed : 0;
    bare.resize(std::min(bare.size(), kListed));
    BATCHSIM_CHECK(bare.empty(), InvalidArgument,
                   str(bare.size() + more, " scene(s) have a navmesh but no geometry to render (",
                       join(bare), more ? str(" and ", more, " more") : std::string(),
                       "): depth and RGB views of them would be blank. Import each model with "
                       "its navmesh (`batchsim import MODEL OUT.bsscene --navmesh FILE`, or "
                       "`batchsim import-dataset`); a bare .navmesh serves batchsim.BatchSim, "
                       "which does not render"));
}

// An empty tensor of `like`'s shape and type, or null where `like` is null.
std::shared_ptr<device::PersistentTensor> twin(
    const std::shared_ptr<device::PersistentTensor>& like) {
    if (!like) return nullptr;
    return device::PersistentTensor::create(like->context(), like->shape(), like->dtype());
}

bool any_episode_ended(const sim::StepOutputs& out, render::ViewRange views) {
    for (std::size_t i = views.first; i < views.first + views.count; ++i)
        if (out.terminated[i] || out.truncated[i]) return true;
    return false;
}

device::DType dtype_of(sim::Element element) {
    switch (element) {
        case sim::Element::Float32: return device::DType::Float32;
        case sim::Element::Int32: return device::DType::Int32;
        case sim::Element::Int64: return device::DType::Int64;
        case sim::Element::Bool: return device::DType::Bool;
    }
    return device::DType::UInt8;
}

// What results() holds: the staged rows of sim::output_table(), and the pointgoals before the
// autoreset where final_views keeps them.
std::vector<ResultSource> result_sources(const sim::BatchSim& sim,
                                         const std::vector<std::array<float, 2>>& final_pointgoal) {
    std::vector<ResultSource> sources;
    for (const sim::OutputRow& row : sim::output_table())
        if (row.staged)
            sources.push_back(
                {std::string(row.name), dtype_of(row.element), row.columns, row.first(sim)});
    if (!final_pointgoal.empty())
        sources.push_back({"final_pointgoal", device::DType::Float32, 2, final_pointgoal.data()});
    return sources;
}

}  // namespace

Simulator::Simulator(std::shared_ptr<device::GpuContext> context, const sim::SimConfig& sim_config,
                     sim::EpisodeSet episodes, const RenderOptions& render)
    : mirror_(render_places(sim_config)) {
    BATCHSIM_CHECK(context != nullptr, InvalidArgument, "a Simulator needs a GpuContext");
    render::validate(renderer_config(sim_config, render));  // before loading any scene
    check_scenes_render(episodes.scene_paths);
    check_memory(*context, sim_config, render, episodes.scene_paths);
    sim_ = std::make_unique<sim::BatchSim>(sim_config, std::move(episodes));
    renderer_ = std::make_shared<render::BatchRenderer>(std::move(context),
                                                        renderer_config(sim_config, render));
    if (render.final_views) {
        BATCHSIM_CHECK(sim_config.autoreset == sim::AutoReset::SameStep, InvalidArgument,
                       str("final_views: expected autoreset 'same_step' (only it ends and starts "
                           "episodes in one step), got '",
                           sim::name_of(sim_config.autoreset), "'"));
        final_depth_ = twin(renderer_->depth());
        final_rgb_ = twin(renderer_->rgb());
        final_pointgoal_.resize(sim_->num_envs());
    }
    results_ = std::make_shared<StepResults>(renderer_->context(),
                                             static_cast<std::int64_t>(sim_->num_envs()),
                                             result_sources(*sim_, final_pointgoal_));
    renderer_->set_batch_copies(
        [results = results_](VkCommandBuffer commands, render::ViewRange views) {
            results->record_copy(commands, views);
        });
}

Simulator::~Simulator() {
    try {
        background_.wait();
    } catch (...) {
        // The step's error has nobody left to report to.
    }
}

sim::BatchSim& Simulator::sim() {
    return *sim_;
}

const std::shared_ptr<render::BatchRenderer>& Simulator::renderer() const {
    return renderer_;
}

void Simulator::reset(std::optional<std::uint64_t> seed, std::uintptr_t cuda_stream) {
    require_idle("reset()");
    sim_->reset(seed);
    render(cuda_stream);
}

void Simulator::reset_envs(std::span<const std::uint8_t> mask, std::uintptr_t cuda_stream) {
    require_idle("reset_envs()");
    sim_->reset_envs(mask);
    render(cuda_stream);
}

void Simulator::step(std::uintptr_t cuda_stream) {
    require_idle("step()");
    run_step(cuda_stream, nullptr);
}

void Simulator::step_async(std::uintptr_t cuda_stream) {
    require_idle("step_async()");
    background_.start([this, cuda_stream] { run_step(cuda_stream, nullptr); });
}

void Simulator::step(std::uintptr_t cuda_stream, const PendingActions& actions) {
    require_idle("step()");
    run_step(cuda_stream, &actions);
}

void Simulator::step_async(std::uintptr_t cuda_stream, PendingActions actions) {
    require_idle("step_async()");
    background_.start(
        [this, cuda_stream, actions = std::move(actions)] { run_step(cuda_stream, &actions); });
}

void Simulator::step_wait() {
    background_.wait();
}

bool Simulator::stepping() const {
    return background_.pending();
}

double Simulator::last_step_seconds() const {
    return last_step_seconds_;
}

double Simulator::last_action_wait_seconds() const {
    return last_action_wait_seconds_;
}

double Simulator::last_submit_seconds() const {
    return last_submit_seconds_;
}

const std::shared_ptr<device::PersistentTensor>& Simulator::final_depth() const {
    return final_depth_;
}

const std::shared_ptr<device::PersistentTensor>& Simulator::final_rgb() const {
    return final_rgb_;
}

std::span<const std::array<float, 2>> Simulator::final_pointgoal() const {
    return final_pointgoal_;
}

const StepResults& Simulator::results() const {
    return *results_;
}

// The step on the caller's thread or the background one; pending actions are taken first.
void Simulator::run_step(std::uintptr_t cuda_stream, const PendingActions* actions) {
    last_action_wait_seconds_ = actions ? take_actions(*actions) : 0.0;
    const std::lock_guard turn(renderer_->context()->host_step_mutex());
    timed_step(cuda_stream);
}

double Simulator::take_actions(const PendingActions& actions) {
    BATCHSIM_CHECK(actions.values != nullptr, Internal, "pending actions without values");
    const auto started = std::chrono::steady_clock::now();
    if (actions.wait) actions.wait();
    const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - started;
    sim_->set_actions({actions.values, sim_->num_envs()});
    return waited.count();
}

void Simulator::timed_step(std::uintptr_t cuda_stream) {
    const auto started = std::chrono::steady_clock::now();
    last_submit_seconds_ = 0;
    sim_->begin_step();
    // One renderer batch, or two with double_buffer: each batch's render runs on the GPU
    // while the next batch simulates.
    const std::uint32_t batches = renderer_->batch_count();
    for (std::uint32_t b = 0; b < batches; ++b) step_batch(b, b + 1 == batches, cuda_stream);
    wait_for_views();
    last_step_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

// Steps the batch's environments and submits their render. The last batch ends the step
// (frees the scenes nobody uses) before its render, as a one-batch step always did.
void Simulator::step_batch(std::uint32_t batch, bool last, std::uintptr_t cuda_stream) {
    const render::ViewRange views = renderer_->batch_views(batch);
    const sim::EnvRange envs{views.first, views.count};
    sim_->act(envs);
    if (!final_pointgoal_.empty()) keep_final_views(batch, cuda_stream);
    sim_->start_pending_episodes(envs);
    if (last) sim_->end_step();
    submit(batch, cuda_stream);
}

// Between the batch's act and its autoreset: the views its ended episodes saw last, rendered
// while their scenes are still resident (no scene is freed before end_step).
void Simulator::keep_final_views(std::uint32_t batch, std::uintptr_t cuda_stream) {
    const render::ViewRange views = renderer_->batch_views(batch);
    const sim::StepOutputs& out = sim_->outputs();
    std::copy_n(out.pointgoal.begin() + views.first, views.count,
                final_pointgoal_.begin() + views.first);
    if (!any_episode_ended(out, views)) return;
    submit(batch, cuda_stream);
    copy_final_views(views, cuda_stream);
}

void Simulator::copy_final_views(render::ViewRange views, std::uintptr_t cuda_stream) {
    std::vector<device::TensorCopy> copies;
    if (final_depth_) copies.push_back({renderer_->depth().get(), final_depth_.get()});
    if (final_rgb_) copies.push_back({renderer_->rgb().get(), final_rgb_.get()});
    device::copy_rows(*renderer_->context(), copies, {views.first, views.count}, cuda_stream);
}

// The mirror's uploads wait for the GPU to finish with a place (BatchRenderer::set_scene),
// so they never change a scene under an earlier batch's render still in flight.
void Simulator::submit(std::uint32_t batch, std::uintptr_t cuda_stream) {
    const auto started = std::chrono::steady_clock::now();
    mirror_.sync(*sim_, *renderer_);
    const render::ViewRange views = renderer_->batch_views(batch);
    renderer_->wait(batch);  // its last render has copied the staged results it reads
    results_->stage(views);
    const std::span<const gpu::CameraPose> poses = sim_->outputs().camera;
    renderer_->submit(batch, poses.subspan(views.first, views.count), cuda_stream);
    last_submit_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

void Simulator::wait_for_views() {
    if (renderer_->context()->exports_cuda()) return;
    for (std::uint32_t b = 0; b < renderer_->batch_count(); ++b) renderer_->wait(b);
}

void Simulator::render(std::uintptr_t cuda_stream) {
    for (std::uint32_t b = 0; b < renderer_->batch_count(); ++b) submit(b, cuda_stream);
    wait_for_views();
}

// The caller's (batchsim.Simulator refuses such calls with its own error): a call here
// while the step's thread runs would race it.
void Simulator::require_idle(const char* what) const {
    BATCHSIM_CHECK(!background_.pending(), Internal,
                   str(what, " while an asynchronous step is running: call step_wait() first"));
}

}  // namespace batchsim::env
