#include "env/simulator.hpp"

#include <chrono>

#include "core/check.hpp"
#include "core/strings.hpp"

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

}  // namespace

Simulator::Simulator(std::shared_ptr<device::GpuContext> context, const sim::SimConfig& sim_config,
                     sim::EpisodeSet episodes, const RenderOptions& render)
    : mirror_(static_cast<std::size_t>(2 * std::max(sim_config.scenes_resident, 1))) {
    BATCHSIM_CHECK(context != nullptr, InvalidArgument, "a Simulator needs a GpuContext");
    render::validate(renderer_config(sim_config, render));  // before loading any scene
    sim_ = std::make_unique<sim::BatchSim>(sim_config, std::move(episodes));
    renderer_ = std::make_shared<render::BatchRenderer>(std::move(context),
                                                        renderer_config(sim_config, render));
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
    timed_step(cuda_stream);
}

void Simulator::step_async(std::uintptr_t cuda_stream) {
    require_idle("step_async()");
    background_.start([this, cuda_stream] { timed_step(cuda_stream); });
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

void Simulator::timed_step(std::uintptr_t cuda_stream) {
    const auto started = std::chrono::steady_clock::now();
    sim_->step();
    render(cuda_stream);
    last_step_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
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
