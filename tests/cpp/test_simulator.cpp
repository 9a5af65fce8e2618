// The whole step in C++: Simulator = BatchSim's worker threads and background scene loader,
// SceneMirror and BatchRenderer on lavapipe, optionally on Simulator's own background thread
// (step_async) and in two double-buffered halves. `make test-tsan` runs these under
// ThreadSanitizer, so they cover every thread a training step touches.
#include "env/simulator.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "assets/packed_scene_writer.hpp"
#include "core/check.hpp"
#include "sim_scenes.hpp"

using namespace batchsim;

namespace {

// `mesh` with its baked navmesh as a packed scene that the renderer draws: one chunk of
// every triangle, one white material.
assets::SceneData packed_scene_of(const test::Mesh& mesh, const nav::NavMesh& navmesh) {
    assets::SceneData scene;
    // Bounds start inverted and grow with every vertex; all indices, material 0.
    gpu::MeshChunk chunk{1e9f, 1e9f, 1e9f, 0, -1e9f, -1e9f, -1e9f, 0, 0, 0, 0, 0};
    for (std::size_t i = 0; i < mesh.positions.size(); i += 3) {
        const float x = mesh.positions[i], y = mesh.positions[i + 1], z = mesh.positions[i + 2];
        scene.vertices.push_back({x, y, z, 0, 1, 0, 0, 0});
        chunk.min_x = std::min(chunk.min_x, x), chunk.max_x = std::max(chunk.max_x, x);
        chunk.min_y = std::min(chunk.min_y, y), chunk.max_y = std::max(chunk.max_y, y);
        chunk.min_z = std::min(chunk.min_z, z), chunk.max_z = std::max(chunk.max_z, z);
    }
    scene.indices = mesh.indices;
    chunk.index_count = static_cast<std::uint32_t>(mesh.indices.size());
    scene.chunks = {chunk};
    scene.materials = {{1, 1, 1, 1, gpu::kNoTexture, 0, 0, 0}};
    scene.navmesh = navmesh.habitat_bytes();
    scene.bounds = {{chunk.min_x, chunk.min_y, chunk.min_z},
                    {chunk.max_x, chunk.max_y, chunk.max_z}};
    scene.source = "test.glb";
    return scene;
}

// Three packed scenes (two_rooms twice, so that scene swaps also reuse geometry) in a
// scratch folder, and seeded random episodes on them.
struct Scenes {
    test::SimScenes scenes;
    sim::EpisodeSet episodes;

    Scenes() {
        add("two_rooms", test::two_rooms());
        add("pillared_hall", test::pillared_hall());
        add("two_rooms_again", test::two_rooms());
        episodes = test::random_episodes(scenes, 8, 5);
    }

    void add(const std::string& name, const test::Mesh& mesh) {
        scenes.meshes.push_back(test::bake(mesh));
        scenes.paths.push_back(scenes.dir->path / (name + ".bsscene"));
        assets::write_packed_scene(scenes.paths.back(),
                                   packed_scene_of(mesh, *scenes.meshes.back()));
    }
};

sim::SimConfig sim_config() {
    sim::SimConfig c;
    c.num_envs = 6;
    c.num_threads = 2;  // the pool's background worker runs too
    c.seed = 3;
    c.scenes_resident = 2;
    c.task.max_episode_steps = 12;
    c.steps_per_scene = 15;  // scene swaps (background loads) within the run
    return c;
}

env::RenderOptions render_options(bool double_buffer) {
    env::RenderOptions o;
    o.width = 16;
    o.height = 16;
    o.backend = render::Backend::Compute;  // no depth ties resolved in draw order
    o.double_buffer = double_buffer;
    o.final_views = true;  // one more render and a copy in steps where episodes end
    return o;
}

std::shared_ptr<device::GpuContext> cpu_context() {
    return std::make_shared<device::GpuContext>(
        device::GpuContext::Config{.validation = true, .export_target = device::ExportTarget::Cpu});
}

// Environment i's action at `step`: mostly forward, some turns and stops.
std::int64_t action_of(std::size_t step, std::size_t env) {
    const std::size_t u = (step * 31 + env * 17) % 20;
    return u == 0 ? 0 : u < 12 ? 1 : u < 16 ? 2 : 3;
}

// The final depth of every environment whose episode ended in the last step (final_views).
// Returns how many there were.
std::size_t append_final_views(env::Simulator& simulator, std::vector<std::uint8_t>& out) {
    const sim::StepOutputs& o = simulator.sim().outputs();
    const device::PersistentTensor& depth = *simulator.final_depth();
    const std::size_t per_view = depth.nbytes() / o.reward.size();
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(depth.data_ptr());
    std::size_t ended = 0;
    for (std::size_t i = 0; i < o.reward.size(); ++i) {
        if (!o.terminated[i] && !o.truncated[i]) continue;
        out.insert(out.end(), bytes + i * per_view, bytes + (i + 1) * per_view);
        ++ended;
    }
    return ended;
}

// Per step: every view's depth bytes, the rewards' bytes and the ended episodes' final views.
struct Trace {
    std::vector<std::vector<std::uint8_t>> steps;
    std::uint64_t scene_swaps = 0;
    std::size_t ended = 0;  // episodes that ended, final views kept
    void record(env::Simulator& simulator) {
        const device::PersistentTensor& depth = *simulator.renderer()->depth();
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(depth.data_ptr());
        std::vector<std::uint8_t> step(bytes, bytes + depth.nbytes());
        const std::vector<float>& reward = simulator.sim().outputs().reward;
        const auto* reward_bytes = reinterpret_cast<const std::uint8_t*>(reward.data());
        step.insert(step.end(), reward_bytes, reward_bytes + reward.size() * sizeof(float));
        ended += append_final_views(simulator, step);
        steps.push_back(std::move(step));
    }
};

// With `async`, the step starts on the background thread before its actions exist: this
// thread writes them and then releases the step's wait, as a policy's copy would.
void step_once(env::Simulator& simulator, std::vector<std::int64_t>& actions, std::size_t t,
               bool async) {
    const auto fill = [&] {
        for (std::size_t i = 0; i < actions.size(); ++i) actions[i] = action_of(t, i);
    };
    if (!async) {
        fill();
        simulator.step(0, {.values = actions.data(), .wait = {}});
        return;
    }
    std::promise<void> arrived;
    std::shared_future<void> ready = arrived.get_future().share();
    simulator.step_async(0, {.values = actions.data(), .wait = [ready] { ready.wait(); }});
    try {  // the caller's bug (batchsim.Simulator refuses it first): an internal error
        simulator.reset(std::nullopt, 0);
        FAIL("reset() ran while a step was running");
    } catch (const Error& error) {
        CHECK(error.kind() == Error::Kind::Internal);
    }
    fill();
    arrived.set_value();
    simulator.step_wait();
}

// `steps` steps with pending actions, on the background thread when `async`.
Trace run(bool double_buffer, bool async, int steps) {
    const Scenes scenes;
    env::Simulator simulator(cpu_context(), sim_config(), scenes.episodes,
                             render_options(double_buffer));
    Trace trace;
    simulator.reset(std::uint64_t{11}, 0);
    trace.record(simulator);
    std::vector<std::int64_t> actions(simulator.sim().num_envs());
    for (int t = 0; t < steps; ++t) {
        step_once(simulator, actions, static_cast<std::size_t>(t), async);
        trace.record(simulator);
    }
    trace.scene_swaps = simulator.sim().stats().slots.scene_swaps;
    return trace;
}

}  // namespace

TEST_CASE("Simulator: async and double-buffered steps match plain steps bit for bit",
          "[simulator]") {
    constexpr int kSteps = 40;
    const Trace plain = run(false, false, kSteps);
    CHECK(plain.scene_swaps > 0);  // background loads and scene changes ran during the steps
    CHECK(plain.ended > 0);        // and final views were rendered and copied
    const Trace both = run(true, true, kSteps);
    REQUIRE(both.steps.size() == plain.steps.size());
    for (std::size_t t = 0; t < plain.steps.size(); ++t) {
        INFO("step " << t);
        CHECK(both.steps[t] == plain.steps[t]);
    }
}

// Both simulators' background threads are started at once on the one context (GPU work of
// several simulators and streams shares a context; see GpuContext); they take turns.
TEST_CASE("Simulator: two simulators on one context step at once as each would alone",
          "[simulator]") {
    constexpr int kSteps = 20;
    const Trace alone = run(false, false, kSteps);
    const Scenes scenes;
    const std::shared_ptr<device::GpuContext> context = cpu_context();
    std::vector<std::unique_ptr<env::Simulator>> simulators;
    std::vector<Trace> traces(2);
    for (const bool double_buffer : {true, false}) {
        simulators.push_back(std::make_unique<env::Simulator>(
            context, sim_config(), scenes.episodes, render_options(double_buffer)));
        simulators.back()->reset(std::uint64_t{11}, 0);
        traces[simulators.size() - 1].record(*simulators.back());
    }
    std::vector<std::int64_t> actions(simulators[0]->sim().num_envs());
    for (std::size_t t = 0; t < kSteps; ++t) {
        for (std::size_t i = 0; i < actions.size(); ++i) actions[i] = action_of(t, i);
        for (auto& simulator : simulators) simulator->step_async(0, {actions.data(), {}});
        for (std::size_t k = 0; k < simulators.size(); ++k) {
            simulators[k]->step_wait();
            traces[k].record(*simulators[k]);
        }
    }
    for (const Trace& trace : traces) CHECK(trace.steps == alone.steps);
}

// The half-batch pipeline relies on it: two halves stepped at once would share the cores and
// fall into step. While the test holds the turn, a started step takes its actions and stops.
TEST_CASE("Simulator: simulators on one context take turns at their host step", "[simulator]") {
    const Scenes scenes;
    const std::shared_ptr<device::GpuContext> context = cpu_context();
    env::Simulator simulator(context, sim_config(), scenes.episodes, render_options(false));
    simulator.reset(std::uint64_t{3}, 0);
    std::vector<std::int64_t> actions(simulator.sim().num_envs(), 1);
    std::promise<void> taken;
    {
        const std::lock_guard turn(context->host_step_mutex());
        simulator.step_async(0,
                             {.values = actions.data(), .wait = [&taken] { taken.set_value(); }});
        taken.get_future().wait();
        // Unbounded without the turn this holds; a step of these scenes takes milliseconds.
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        CHECK(simulator.stepping());
        CHECK(simulator.sim().stats().steps == 0);
    }
    simulator.step_wait();
    CHECK(simulator.sim().stats().steps == 1);
}

TEST_CASE("Simulator: a step's error is rethrown by step_wait and the next step runs",
          "[simulator]") {
    const Scenes scenes;
    env::Simulator simulator(cpu_context(), sim_config(), scenes.episodes, render_options(true));
    simulator.reset(std::uint64_t{1}, 0);
    std::vector<std::int64_t> actions(simulator.sim().num_envs(), 7);  // out of range
    simulator.step_async(0, {.values = actions.data(), .wait = {}});
    CHECK_THROWS_AS(simulator.step_wait(), Error);
    CHECK_FALSE(simulator.stepping());
    std::fill(actions.begin(), actions.end(), 1);
    simulator.step_async(0, {.values = actions.data(), .wait = {}});
    simulator.step_wait();
    CHECK(simulator.sim().stats().steps == 1);
    CHECK(simulator.last_step_seconds() > 0);
}
