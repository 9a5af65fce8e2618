// Simulator: the batch simulator and the batch renderer behind one step. step() advances
// every environment on the CPU threads, brings the renderer's places up to date with the
// scenes the simulator holds (SceneMirror) and renders every environment's camera in one
// submission. step_async() runs the same on a background thread and returns at once, so
// the caller can work meanwhile (run the policy on the other half of a double-buffered
// batch, say); step_wait() joins it. No Python and no per-environment work on the caller.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "core/background_task.hpp"
#include "device/gpu_context.hpp"
#include "env/scene_mirror.hpp"
#include "render/batch_renderer.hpp"
#include "sim/batch_sim.hpp"

namespace batchsim::env {

// The renderer's settings that are the env's to choose (views and places follow the sim).
struct RenderOptions {
    std::uint32_t width = 64;
    std::uint32_t height = 64;
    float hfov_degrees = 90.0f;
    float near_plane = 0.01f;
    float far_plane = 1000.0f;
    bool depth = true;
    bool rgb = false;
    render::Backend backend = render::Backend::Auto;
};

class Simulator {
public:
    // Throws what BatchSim and BatchRenderer throw for bad settings.
    Simulator(std::shared_ptr<device::GpuContext> context, const sim::SimConfig& sim_config,
              sim::EpisodeSet episodes, const RenderOptions& render);
    ~Simulator();  // waits for a running step
    Simulator(const Simulator&) = delete;
    Simulator& operator=(const Simulator&) = delete;

    [[nodiscard]] sim::BatchSim& sim();
    [[nodiscard]] const std::shared_ptr<render::BatchRenderer>& renderer() const;

    // Each then renders every environment's camera; `cuda_stream` as BatchRenderer::render.
    // All throw Error(InvalidArgument) while an asynchronous step is running.
    void reset(std::optional<std::uint64_t> seed, std::uintptr_t cuda_stream);
    void reset_envs(std::span<const std::uint8_t> mask, std::uintptr_t cuda_stream);
    void step(std::uintptr_t cuda_stream);
    void step_async(std::uintptr_t cuda_stream);
    void step_wait();  // rethrows the step's error; returns at once if none is running
    [[nodiscard]] bool stepping() const;

    // Wall time of the last step in C++ (simulation, scene sync and render submission; with
    // CPU export the render itself), for measuring what the layers above add.
    [[nodiscard]] double last_step_seconds() const;

private:
    void timed_step(std::uintptr_t cuda_stream);  // step + render, timed
    void render(std::uintptr_t cuda_stream);
    void require_idle(const char* what) const;

    std::unique_ptr<sim::BatchSim> sim_;
    std::shared_ptr<render::BatchRenderer> renderer_;
    SceneMirror mirror_;
    double last_step_seconds_ = 0;
    BackgroundTask background_;  // last: joined before the rest is destroyed
};

}  // namespace batchsim::env
