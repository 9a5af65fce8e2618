// Simulator: the batch simulator and the batch renderer behind one step. step() advances
// every environment on the CPU threads, brings the renderer's places up to date with the
// scenes the simulator holds (SceneMirror) and renders every environment's camera in one
// submission. step_async() runs the same on a background thread and returns at once, so
// the caller can work meanwhile (run the policy on the other half of a double-buffered
// batch, say); step_wait() joins it. No Python and no per-environment work on the caller.
//
// With RenderOptions::double_buffer, step() works in two halves of the batch, each a
// renderer batch: it simulates half A, submits A's render without waiting, simulates half B
// while the GPU renders A, then submits B (the paper's double buffering). The results are
// the one-submission step's, bit for bit: BatchSim's ranged step is its step, scenes are
// freed only after half B has chosen its episodes, scene uploads wait for the GPU to finish
// with a place, and a batch draws what the whole render draws (the raster backend resolves
// exact depth ties in draw order, which varies from run to run anyway). final_views works
// per half: a half in which an episode ended renders and keeps its views before its
// autoreset; only ended environments' final entries are promised, in either mode. Views of
// environments that evaluation parked show what their last place holds, in either mode.
// reset() and reset_envs() render every view at once. Simulators sharing a context take
// turns at their steps' host work (GpuContext::host_step_mutex).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/background_task.hpp"
#include "device/gpu_context.hpp"
#include "device/tensor.hpp"
#include "env/scene_mirror.hpp"
#include "env/step_results.hpp"
#include "render/batch_renderer.hpp"
#include "sim/batch_sim.hpp"

namespace batchsim::env {

// The renderer's settings that are the env's to choose (views and places follow the sim).
// Defaults are the renderer's, but for colour: a simulator renders depth only unless asked.
struct RenderOptions {
    static constexpr render::RendererConfig kRenderer{};
    std::uint32_t width = kRenderer.width;
    std::uint32_t height = kRenderer.height;
    float hfov_degrees = kRenderer.hfov_degrees;
    float near_plane = kRenderer.near_plane;
    float far_plane = kRenderer.far_plane;
    bool depth = kRenderer.depth;
    bool rgb = false;
    render::Backend backend = kRenderer.backend;
    // SameStep autoreset only: in a step where episodes end, also render the views they saw
    // last (final_depth, final_rgb; gymnasium's final_obs). Costs a second render in those
    // steps; trainers that bootstrap from values, not final observations, leave it off.
    bool final_views = false;
    // Overlap the CPU simulation of one half of the batch with the GPU render of the other
    // (see Simulator); same results. It pays where the GPU would idle while the CPU steps;
    // nothing overlaps where the CPU renders too (lavapipe), and with N < 2 it does nothing.
    bool double_buffer = false;
};

// A step's actions that reach the host after the step is asked for (a policy's, on the GPU,
// copied into pinned memory): N int64 at `values`, final once `wait()` returns. The step
// calls wait() on its own thread, so step_async() returns before they are ready; their owner
// keeps `values` and what `wait` waits on alive until step() / step_wait() returns.
struct PendingActions {
    const std::int64_t* values = nullptr;
    std::function<void()> wait;  // blocks until `values` hold this step's actions; may be empty
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
    // None may be called while an asynchronous step is running: the caller's bug, which
    // throws Error(Internal) (batchsim.Simulator refuses it first, as InvalidArgumentError).
    void reset(std::optional<std::uint64_t> seed, std::uintptr_t cuda_stream);
    void reset_envs(std::span<const std::uint8_t> mask, std::uintptr_t cuda_stream);
    void step(std::uintptr_t cuda_stream);
    void step_async(std::uintptr_t cuda_stream);
    // The same with the actions read from `actions` after its wait (checked then, as
    // BatchSim::set_actions: a bad value throws from step() / step_wait()).
    void step(std::uintptr_t cuda_stream, const PendingActions& actions);
    void step_async(std::uintptr_t cuda_stream, PendingActions actions);
    void step_wait();  // rethrows the step's error; returns at once if none is running
    [[nodiscard]] bool stepping() const;

    // With RenderOptions::final_views, in a step where an episode ended: each environment's
    // view and pointgoal before the autoreset (only the ended environments' entries are
    // new). Null tensors / empty otherwise. Same shapes as the renderer's outputs.
    [[nodiscard]] const std::shared_ptr<device::PersistentTensor>& final_depth() const;
    [[nodiscard]] const std::shared_ptr<device::PersistentTensor>& final_rgb() const;
    [[nodiscard]] std::span<const std::array<float, 2>> final_pointgoal() const;
    // The step's per-environment results (StepOutputs, the episode and scene indices, and
    // final_pointgoal with final_views) as tensors beside the views, in the same order.
    [[nodiscard]] const StepResults& results() const;

    // Wall time of the last step in C++ (simulation, scene sync and render submission; with
    // CPU export the render itself), for measuring what the layers above add.
    [[nodiscard]] double last_step_seconds() const;
    // How long the last step waited for its PendingActions (0 without), apart from the above.
    [[nodiscard]] double last_action_wait_seconds() const;
    // Of last_step_seconds, the time handing renders to the GPU: scene sync, pose upload and
    // submission (a wait for the batch's previous render included), every batch's summed.
    [[nodiscard]] double last_submit_seconds() const;

private:
    void run_step(std::uintptr_t cuda_stream, const PendingActions* actions);
    double take_actions(const PendingActions& actions);  // returns the seconds waited
    void timed_step(std::uintptr_t cuda_stream);         // step + render, timed
    void step_batch(std::uint32_t batch, bool last, std::uintptr_t cuda_stream);
    void keep_final_views(std::uint32_t batch, std::uintptr_t cuda_stream);
    void copy_final_views(render::ViewRange views, std::uintptr_t cuda_stream);
    void submit(std::uint32_t batch, std::uintptr_t cuda_stream);
    void wait_for_views();  // with CPU export; CUDA work is ordered on the stream instead
    void render(std::uintptr_t cuda_stream);
    void require_idle(const char* what) const;

    std::unique_ptr<sim::BatchSim> sim_;
    std::shared_ptr<render::BatchRenderer> renderer_;
    SceneMirror mirror_;
    std::shared_ptr<device::PersistentTensor> final_depth_, final_rgb_;
    std::vector<std::array<float, 2>> final_pointgoal_;
    std::shared_ptr<StepResults> results_;  // shared with the renderer's recorded copies
    double last_step_seconds_ = 0;
    double last_action_wait_seconds_ = 0;
    double last_submit_seconds_ = 0;
    BackgroundTask background_;  // last: joined before the rest is destroyed
};

}  // namespace batchsim::env
