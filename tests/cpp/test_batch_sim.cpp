#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "sim/batch_sim.hpp"
#include "sim_scenes.hpp"

using namespace batchsim;
using sim::BatchSim;

namespace {

sim::SimConfig small_config(int envs, int threads) {
    sim::SimConfig c;
    c.num_envs = envs;
    c.num_threads = threads;
    c.seed = 7;
    c.scenes_resident = 2;
    c.task.max_episode_steps = 40;
    c.steps_per_scene = 45;
    return c;
}

// Environment i's action at `step`: a function of (step, i) only, mostly forward.
std::int32_t action_of(std::size_t step, std::size_t env) {
    Rng rng(step * 7919 + 13, env);
    const float u = rng.uniform();
    return u < 0.02f ? 0 : u < 0.6f ? 1 : u < 0.8f ? 2 : 3;
}

void set_actions(BatchSim& sim, std::size_t step) {
    auto actions = sim.actions();
    for (std::size_t i = 0; i < actions.size(); ++i) actions[i] = action_of(step, i);
}

// Everything a step reports for environment i, as raw bytes (bit-identical comparisons).
std::vector<std::uint8_t> env_record(const BatchSim& sim, std::size_t i) {
    std::vector<std::uint8_t> out;
    auto add = [&](const auto& value) {
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(&value);
        out.insert(out.end(), bytes, bytes + sizeof(value));
    };
    const auto& s = sim.state();
    const auto& o = sim.outputs();
    add(s.position[i]), add(s.rotation[i]), add(s.episode[i]), add(s.scene[i]);
    add(o.pointgoal[i]), add(o.reward[i]), add(o.terminated[i]), add(o.truncated[i]);
    add(o.success[i]), add(o.spl[i]), add(o.softspl[i]), add(o.distance_to_goal[i]);
    add(o.collisions[i]), add(o.episode_step[i]), add(o.camera[i]);
    return out;
}

// Records of environments [0, envs) over `steps` steps.
std::vector<std::vector<std::uint8_t>> run(BatchSim& sim, int steps, std::size_t envs) {
    std::vector<std::vector<std::uint8_t>> records;
    sim.reset();
    for (int t = 0; t < steps; ++t) {
        set_actions(sim, std::size_t(t));
        sim.step();
        for (std::size_t i = 0; i < envs; ++i) records.push_back(env_record(sim, i));
    }
    return records;
}

}  // namespace

TEST_CASE("BatchSim: bit-identical results for any number of threads", "[batch_sim]") {
    const auto scenes = test::standard_scenes();
    const auto episodes = test::random_episodes(scenes, 12, 3);
    BatchSim one(small_config(37, 1), episodes);
    const auto reference = run(one, 150, 37);
    for (int threads : {2, 3}) {
        BatchSim many(small_config(37, threads), episodes);
        CHECK(run(many, 150, 37) == reference);
    }
    CHECK(one.stats().slots.scene_swaps > 0);  // the comparison covered scene swaps
}

TEST_CASE("BatchSim: an environment's results do not depend on the batch size", "[batch_sim]") {
    const auto scenes = test::standard_scenes();
    const auto episodes = test::random_episodes(scenes, 12, 4);
    BatchSim small(small_config(10, 1), episodes);
    BatchSim large(small_config(26, 2), episodes);
    CHECK(run(small, 150, 10) == run(large, 150, 10));
}

TEST_CASE("BatchSim: evaluation runs every episode exactly once", "[batch_sim]") {
    const auto scenes = test::standard_scenes();
    const auto episodes = test::random_episodes(scenes, 9, 5);
    for (int envs : {1, 4, 7, 40}) {
        auto config = small_config(envs, 2);
        config.order = sim::EpisodeOrder::Eval;
        BatchSim sim(config, episodes);
        std::multiset<std::int64_t> started;
        sim.reset();
        auto record_starts = [&] {
            for (std::size_t i = 0; i < sim.num_envs(); ++i)
                if (sim.state().active[i] && sim.outputs().episode_step[i] == 0 &&
                    !sim.outputs().terminated[i] && !sim.outputs().truncated[i])
                    started.insert(sim.state().episode[i]);
        };
        record_starts();
        for (int t = 0; t < 5000 && !sim.finished(); ++t) {
            set_actions(sim, std::size_t(t));
            sim.step();
            // Same-step resets: an env that ended starts its next episode in this step.
            for (std::size_t i = 0; i < sim.num_envs(); ++i)
                if ((sim.outputs().terminated[i] || sim.outputs().truncated[i]) &&
                    sim.state().active[i])
                    started.insert(sim.state().episode[i]);
        }
        INFO("envs " << envs);
        REQUIRE(sim.finished());
        CHECK(started.size() == episodes.size());
        for (std::int64_t e = 0; e < std::int64_t(episodes.size()); ++e)
            CHECK(started.count(e) == 1);
        CHECK(sim.stats().slots.resident_scenes == 0);
    }
}

TEST_CASE("BatchSim: scene swaps happen at episode ends and free the old scene", "[batch_sim]") {
    const auto scenes = test::standard_scenes();
    const auto episodes = test::random_episodes(scenes, 6, 6);
    auto config = small_config(12, 2);
    config.scenes_resident = 1;
    BatchSim sim(config, episodes);
    sim.reset();
    std::vector<std::int32_t> scene_before(sim.state().scene);
    std::size_t switches = 0;
    // The slots own resident scenes: watch the first one's navmesh.
    const std::weak_ptr<const nav::NavMesh> first_mesh =
        sim.resident_scene(sim.state().resident[0])->navmesh;
    for (int t = 0; t < 400; ++t) {
        set_actions(sim, std::size_t(t));
        sim.step();
        const auto& s = sim.state();
        const auto& o = sim.outputs();
        for (std::size_t i = 0; i < sim.num_envs(); ++i) {
            const bool ended = o.terminated[i] || o.truncated[i];
            if (s.scene[i] != scene_before[i]) {
                INFO("step " << t << " env " << i);
                CHECK(ended);  // never mid-episode
                switches += 1;
            }
            scene_before[i] = s.scene[i];
        }
        const auto stats = sim.stats().slots;
        CHECK(stats.resident_scenes <= 2);  // K = 1: the current scene and the next
    }
    const auto stats = sim.stats();
    CHECK(switches == stats.slots.env_switches);
    CHECK(stats.slots.scene_swaps >= 3);
    CHECK(stats.slots.scenes_freed == stats.slots.scene_swaps);
    std::size_t largest = 0;
    for (const auto& path : scenes.paths) largest = std::max(largest, sim::load_scene(path).bytes);
    CHECK(stats.slots.peak_resident_bytes <= 2 * largest);
    CHECK(first_mesh.expired());  // its memory is released, not only uncounted
}

TEST_CASE("BatchSim: unreachable goals give finite metrics", "[batch_sim]") {
    test::SimScenes scenes;
    scenes.add("islands", test::two_islands());
    sim::EpisodeSet set;
    set.scene_paths = scenes.paths;
    set.scene = {0, 0};
    set.start_position = {{1.5f, 0, 1.5f}, {1.0f, 0, 1.0f}};
    set.start_rotation = {sim::kIdentityQuat, sim::kIdentityQuat};
    set.goal = {{6.5f, 0, 1.5f}, {2.0f, 0, 2.0f}};  // across the gap; reachable
    for (auto mode : {sim::GeodesicMode::Exact, sim::GeodesicMode::Corridor}) {
        auto config = small_config(4, 1);
        config.scenes_resident = 1;
        config.geodesic = mode;
        config.order = sim::EpisodeOrder::Eval;
        BatchSim sim(config, set);
        sim.reset();
        CHECK(sim.outputs().distance_to_goal[0] == Approx(5.0f));  // straight-line fallback
        for (int t = 0; t < 30; ++t) {
            set_actions(sim, std::size_t(t));
            sim.step();
            for (std::size_t i = 0; i < 2; ++i) {
                CHECK(std::isfinite(sim.outputs().reward[i]));
                CHECK(std::isfinite(sim.outputs().distance_to_goal[i]));
                CHECK(std::isfinite(sim.outputs().spl[i]));
                CHECK(std::isfinite(sim.outputs().softspl[i]));
            }
        }
        CHECK(sim.stats().unreachable > 0);
    }
}

TEST_CASE("BatchSim: bad actions and calls are rejected before anything changes", "[batch_sim]") {
    const auto scenes = test::standard_scenes();
    BatchSim sim(small_config(5, 1), test::random_episodes(scenes, 3, 9));
    CHECK_THROWS_WITH(sim.step(), Catch::Contains("reset() before step()"));
    sim.reset();
    const auto before = env_record(sim, 0);
    sim.actions()[3] = 4;
    CHECK_THROWS_WITH(sim.step(), Catch::Contains("actions[3] is 4"));
    sim.actions()[3] = -1;
    CHECK_THROWS_AS(sim.step(), Error);
    CHECK(env_record(sim, 0) == before);
    CHECK(sim.stats().steps == 0);
    const std::vector<std::uint8_t> short_mask(4, 1);
    CHECK_THROWS_WITH(sim.reset_envs(short_mask), Catch::Contains("one entry per environment"));
    CHECK_THROWS_WITH(sim.act(sim::EnvRange{3, 3}),
                      Catch::Contains("environments 3..6 lie outside"));
}

TEST_CASE("BatchSim: set_actions widens int64 actions or rejects them unchanged", "[batch_sim]") {
    const auto scenes = test::standard_scenes();
    BatchSim sim(small_config(4, 1), test::random_episodes(scenes, 2, 5));
    const std::vector<std::int64_t> given{0, 1, 2, 3};
    sim.set_actions(given);
    CHECK(std::vector<std::int32_t>(sim.actions().begin(), sim.actions().end()) ==
          std::vector<std::int32_t>{0, 1, 2, 3});
    // 2^32 + 1 would read as 1 if cut to int32: it must be named as given.
    const std::vector<std::int64_t> wide{3, 3, 4294967297LL, 3};
    CHECK_THROWS_WITH(sim.set_actions(wide),
                      "actions[2] is 4294967297; expected 0 (STOP), 1 (MOVE_FORWARD), "
                      "2 (TURN_LEFT) or 3 (TURN_RIGHT)");
    CHECK(sim.actions()[0] == 0);  // a rejected batch leaves every action as it was
    CHECK_THROWS_WITH(sim.set_actions(std::vector<std::int64_t>(3, 1)),
                      Catch::Contains("expected 4 values, got 3"));
}

TEST_CASE("BatchSim: autoreset modes", "[batch_sim]") {
    const auto scenes = test::standard_scenes();
    const auto episodes = test::random_episodes(scenes, 4, 10);
    auto stop_all = [](BatchSim& sim) {
        for (auto& a : sim.actions()) a = 0;
        sim.step();
    };
    SECTION("same_step starts the next episode in the ending step") {
        BatchSim sim(small_config(3, 1), episodes);
        sim.reset();
        stop_all(sim);
        CHECK(sim.outputs().terminated[0] == 1);
        CHECK(sim.state().steps[0] == 0);
        CHECK(sim.outputs().episode_step[0] == 1);  // the ended episode's
    }
    SECTION("next_step starts it at the following step, ignoring that step's action") {
        auto config = small_config(3, 1);
        config.autoreset = sim::AutoReset::NextStep;
        BatchSim sim(config, episodes);
        sim.reset();
        stop_all(sim);
        CHECK(sim.outputs().terminated[0] == 1);
        CHECK(sim.state().needs_episode[0] == 1);
        stop_all(sim);
        CHECK(sim.outputs().terminated[0] == 0);
        CHECK(sim.outputs().reward[0] == 0.0f);
        CHECK(sim.outputs().episode_step[0] == 0);
        CHECK(sim.state().needs_episode[0] == 0);
    }
    SECTION("disabled waits for reset_envs") {
        auto config = small_config(3, 1);
        config.autoreset = sim::AutoReset::Disabled;
        BatchSim sim(config, episodes);
        sim.reset();
        stop_all(sim);
        stop_all(sim);
        stop_all(sim);
        CHECK(sim.state().needs_episode[1] == 1);
        CHECK(sim.outputs().terminated[1] == 0);
        const std::vector<std::uint8_t> mask{0, 1, 0};
        sim.reset_envs(mask);
        CHECK(sim.state().needs_episode[1] == 0);
        CHECK(sim.state().needs_episode[0] == 1);
    }
}

TEST_CASE("BatchSim: step() is act() then start_pending_episodes(), bit for bit", "[batch_sim]") {
    const auto scenes = test::standard_scenes();
    const auto episodes = test::random_episodes(scenes, 4, 10);
    BatchSim whole(small_config(24, 2), episodes);
    BatchSim halves(small_config(24, 2), episodes);
    whole.reset();
    halves.reset();
    std::size_t ended = 0;
    for (std::size_t t = 0; t < 120; ++t) {
        set_actions(whole, t);
        set_actions(halves, t);
        whole.step();
        halves.act();
        // Between the halves an ended episode still shows its last state.
        for (std::size_t i = 0; i < 24; ++i)
            if (halves.outputs().terminated[i] || halves.outputs().truncated[i]) {
                CHECK(halves.state().needs_episode[i] == 1);
                ended += 1;
            }
        halves.start_pending_episodes();
        for (std::size_t i = 0; i < 24; ++i) REQUIRE(env_record(whole, i) == env_record(halves, i));
    }
    CHECK(ended > 10);  // the check above ran on real episode ends
}

namespace {

// One step of `sim` over the ranges `sizes` cuts the batch into, in order.
void step_in_ranges(BatchSim& sim, const std::vector<std::size_t>& sizes) {
    sim.begin_step();
    std::size_t first = 0;
    for (const std::size_t count : sizes) {
        sim.act({first, count});
        sim.start_pending_episodes({first, count});
        first += count;
    }
    sim.end_step();
}

}  // namespace

TEST_CASE("BatchSim: a step over ranges of environments is step(), bit for bit", "[batch_sim]") {
    // Six scenes for two slots: evaluation claims scenes again and again, in an order that
    // a range must not change.
    test::SimScenes scenes;
    for (int copy = 0; copy < 2; ++copy) {
        scenes.add(str("two_rooms_", copy), test::two_rooms());
        scenes.add(str("pillared_hall_", copy), test::pillared_hall());
        scenes.add(str("two_islands_", copy), test::two_islands());
    }
    const auto episodes = test::random_episodes(scenes, 4, 11);
    const std::vector<std::vector<std::size_t>> splits{{6, 7}, {1, 12}, {4, 0, 4, 5}};
    for (const auto order : {sim::EpisodeOrder::Train, sim::EpisodeOrder::Eval})
        for (const auto autoreset : {sim::AutoReset::SameStep, sim::AutoReset::NextStep})
            for (const auto& sizes : splits) {
                auto config = small_config(13, 2);
                config.order = order;
                config.autoreset = autoreset;
                BatchSim whole(config, episodes);
                BatchSim ranged(config, episodes);
                whole.reset();
                ranged.reset();
                INFO("eval " << (order == sim::EpisodeOrder::Eval) << " same_step "
                             << (autoreset == sim::AutoReset::SameStep) << " first range "
                             << sizes[0]);
                for (std::size_t t = 0; t < 200 && !whole.finished(); ++t) {
                    set_actions(whole, t);
                    set_actions(ranged, t);
                    whole.step();
                    step_in_ranges(ranged, sizes);
                    for (std::size_t i = 0; i < 13; ++i)
                        REQUIRE(env_record(whole, i) == env_record(ranged, i));
                    REQUIRE(whole.state().resident == ranged.state().resident);
                    REQUIRE(whole.state().active == ranged.state().active);
                }
                const sim::SimStats a = whole.stats(), b = ranged.stats();
                CHECK(a.steps == b.steps);  // once per step, not per range
                CHECK(a.episodes_started == b.episodes_started);
                CHECK(a.slots.env_switches == b.slots.env_switches);
                CHECK(a.slots.scene_swaps == b.slots.scene_swaps);
                CHECK(a.slots.scene_swaps > 0);  // the comparison covered scene swaps
                CHECK(whole.finished() == (order == sim::EpisodeOrder::Eval));
            }
}
