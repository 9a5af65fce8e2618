#include "env/simulator.hpp"

#include <algorithm>
#include <chrono>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "vk/sync.hpp"

namespace batchsim::env {
namespace {

render::RendererConfig renderer_config(const sim::SimConfig& sim, const RenderOptions& o) {
    return {.views = static_cast<std::uint32_t>(sim.num_envs),
            .width = o.width,
            .height = o.height,
            .hfov_degrees = o.hfov_degrees,
            .near_plane = o.near_plane,
            .far_plane = o.far_plane,
            .places = static_cast<std::uint32_t>(2 * sim.scenes_resident),
            .depth = o.depth,
            .rgb = o.rgb,
            .backend = o.backend};
}

// An empty tensor of `like`'s shape and type, or null where `like` is null.
std::shared_ptr<device::PersistentTensor> twin(
    const std::shared_ptr<device::PersistentTensor>& like) {
    if (!like) return nullptr;
    return device::PersistentTensor::create(like->context(), like->shape(), like->dtype());
}

bool any_episode_ended(const sim::StepOutputs& out) {
    for (std::size_t i = 0; i < out.terminated.size(); ++i)
        if (out.terminated[i] || out.truncated[i]) return true;
    return false;
}

void record_copy(VkCommandBuffer commands, const device::PersistentTensor& from,
                 const device::PersistentTensor& to) {
    const VkBufferCopy region{.srcOffset = 0, .dstOffset = 0, .size = from.nbytes()};
    vkCmdCopyBuffer(commands, from.vk_buffer(), to.vk_buffer(), 1, &region);
}

}  // namespace

Simulator::Simulator(std::shared_ptr<device::GpuContext> context, const sim::SimConfig& sim_config,
                     sim::EpisodeSet episodes, const RenderOptions& render)
    : mirror_(static_cast<std::size_t>(2 * std::max(sim_config.scenes_resident, 1))) {
    BATCHSIM_CHECK(context != nullptr, InvalidArgument, "a Simulator needs a GpuContext");
    render::validate(renderer_config(sim_config, render));  // before loading any scene
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

const std::shared_ptr<device::PersistentTensor>& Simulator::final_depth() const {
    return final_depth_;
}

const std::shared_ptr<device::PersistentTensor>& Simulator::final_rgb() const {
    return final_rgb_;
}

std::span<const std::array<float, 2>> Simulator::final_pointgoal() const {
    return final_pointgoal_;
}

// The step on the caller's thread or the background one; pending actions are taken first.
void Simulator::run_step(std::uintptr_t cuda_stream, const PendingActions* actions) {
    last_action_wait_seconds_ = actions ? take_actions(*actions) : 0.0;
    timed_step(cuda_stream);
}

double Simulator::take_actions(const PendingActions& actions) {
    BATCHSIM_CHECK(actions.values != nullptr, InvalidArgument, "pending actions without values");
    const auto started = std::chrono::steady_clock::now();
    if (actions.wait) actions.wait();
    const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - started;
    sim_->set_actions({actions.values, sim_->num_envs()});
    return waited.count();
}

void Simulator::timed_step(std::uintptr_t cuda_stream) {
    const auto started = std::chrono::steady_clock::now();
    if (final_pointgoal_.empty()) {
        sim_->step();
    } else {
        step_keeping_final_views(cuda_stream);
    }
    render(cuda_stream);
    last_step_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

// The step in its two halves with the ended episodes' last views rendered in between, while
// their scenes are still resident.
void Simulator::step_keeping_final_views(std::uintptr_t cuda_stream) {
    sim_->act();
    const sim::StepOutputs& out = sim_->outputs();
    std::copy(out.pointgoal.begin(), out.pointgoal.end(), final_pointgoal_.begin());
    if (any_episode_ended(out)) {
        render(cuda_stream);
        copy_final_views(cuda_stream);
    }
    sim_->start_pending_episodes();
}

void Simulator::copy_final_views(std::uintptr_t cuda_stream) {
    device::GpuContext& context = *renderer_->context();
    auto recording = context.begin();
    const VkCommandBuffer commands = recording.commands();
    // After the render's writes (earlier submissions); before the next render overwrites.
    vk::record_memory_barrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                              VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                              VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    if (final_depth_) record_copy(commands, *renderer_->depth(), *final_depth_);
    if (final_rgb_) record_copy(commands, *renderer_->rgb(), *final_rgb_);
    vk::record_memory_barrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT,
                              VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                              VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
    context.submit(recording, cuda_stream);
}

void Simulator::render(std::uintptr_t cuda_stream) {
    mirror_.sync(*sim_, *renderer_);
    renderer_->render(sim_->outputs().camera, cuda_stream);
}

void Simulator::require_idle(const char* what) const {
    BATCHSIM_CHECK(!background_.pending(), InvalidArgument,
                   str(what, " while an asynchronous step is running: call step_wait() first"));
}

}  // namespace batchsim::env
