// A limit on the geodesic distance of training episodes (BatchSim::set_max_episode_geodesic):
// the eligible episodes against a brute-force reference, uniform draws among them, the
// fallback to a scene's shortest, the unchanged draws without a limit, and refusals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "core/check.hpp"
#include "sim/batch_sim.hpp"
#include "sim/scene_slots.hpp"
#include "sim_scenes.hpp"

using namespace batchsim;
using namespace batchsim::sim;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Random geodesics in [1, 20) m, rounded to 0.5 m so that ties occur.
EpisodeSet with_geodesics(EpisodeSet set, std::uint64_t seed) {
    Rng rng(seed, 99);
    for (std::size_t i = 0; i < set.size(); ++i)
        set.geodesic.push_back(std::round((1.0f + 19.0f * rng.uniform()) * 2.0f) / 2.0f);
    return set;
}

// Brute force: the episodes of `scene` within `limit`, else those tied at its least geodesic,
// ordered by (geodesic, index); all of them in dataset order when every one qualifies.
std::vector<std::int64_t> reference_eligible(const EpisodeSet& e, int scene, float limit) {
    std::vector<std::int64_t> all, within;
    float least = kInf;
    for (std::size_t i = 0; i < e.size(); ++i) {
        if (e.scene[i] != scene) continue;
        all.push_back(std::int64_t(i));
        least = std::min(least, e.geodesic[i]);
        if (e.geodesic[i] <= limit) within.push_back(std::int64_t(i));
    }
    if (within.size() == all.size()) return all;
    if (within.empty())
        for (std::int64_t i : all)
            if (e.geodesic[std::size_t(i)] == least) within.push_back(i);
    std::stable_sort(within.begin(), within.end(), [&](std::int64_t a, std::int64_t b) {
        return e.geodesic[std::size_t(a)] < e.geodesic[std::size_t(b)];
    });
    return within;
}

std::vector<std::int64_t> eligible(const EpisodeSet& e, int scene, float limit) {
    const auto span = eligible_episodes(e, scene, limit);
    return {span.begin(), span.end()};
}

SimConfig train_config(int envs, int threads) {
    SimConfig c;
    c.num_envs = envs;
    c.num_threads = threads;
    c.seed = 11;
    c.scenes_resident = 2;
    c.task.max_episode_steps = 30;
    c.steps_per_scene = 35;
    return c;
}

// Environment i's action at `step`, a function of (step, i) only.
std::int32_t action_of(std::size_t step, std::size_t env) {
    Rng rng(step * 7919 + 5, env);
    const float u = rng.uniform();
    return u < 0.05f ? 0 : u < 0.6f ? 1 : u < 0.8f ? 2 : 3;
}

// The episodes environments start over `steps` steps from a reset with the config's seed,
// in order of starting; `limit_at(step)`, when given, is set before each step.
std::vector<std::int64_t> started_episodes(BatchSim& sim, int steps,
                                           float (*limit_at)(int) = nullptr) {
    std::vector<std::int64_t> started;
    sim.reset(sim.config().seed);
    const auto& state = sim.state();
    const auto& out = sim.outputs();
    for (std::size_t i = 0; i < sim.num_envs(); ++i) started.push_back(state.episode[i]);
    for (int t = 0; t < steps; ++t) {
        if (limit_at != nullptr) sim.set_max_episode_geodesic(limit_at(t));
        auto actions = sim.actions();
        for (std::size_t i = 0; i < actions.size(); ++i) actions[i] = action_of(std::size_t(t), i);
        sim.step();
        for (std::size_t i = 0; i < sim.num_envs(); ++i)
            if ((out.terminated[i] || out.truncated[i]) && state.active[i])
                started.push_back(state.episode[i]);
    }
    return started;
}

struct Scenes {
    test::SimScenes scenes = test::standard_scenes();
    EpisodeSet plain = test::random_episodes(scenes, 30, 21);  // no geodesic column
    EpisodeSet episodes = with_geodesics(plain, 22);
};

}  // namespace

TEST_CASE("eligible_episodes matches a brute-force reference on random geodesics",
          "[geodesic_limit]") {
    Scenes s;
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
        EpisodeSet e = with_geodesics(s.plain, seed);
        validate(e);
        sort_by_geodesic(e);
        Rng rng(seed, 7);
        for (int draw = 0; draw < 30; ++draw) {
            // Limits below, among and above the geodesics, on and off the 0.5 m grid.
            float limit = 22.0f * rng.uniform();
            if (draw % 3 == 0) limit = std::round(limit * 2.0f) / 2.0f;
            for (int scene = 0; scene < e.scene_count(); ++scene) {
                INFO("seed " << seed << " scene " << scene << " limit " << limit);
                CHECK(eligible(e, scene, limit) == reference_eligible(e, scene, limit));
            }
        }
        for (int scene = 0; scene < e.scene_count(); ++scene)
            CHECK(eligible(e, scene, kInf) == e.episodes_of_scene[std::size_t(scene)]);
    }
}

TEST_CASE("eligible_episodes falls back to a scene's shortest episodes, ties included",
          "[geodesic_limit]") {
    Scenes s;
    EpisodeSet e = s.plain;
    e.geodesic.assign(e.size(), 9.0f);
    validate(e);
    const auto scene0 = e.episodes_of_scene[0];
    e.geodesic[std::size_t(scene0[4])] = 3.0f;
    e.geodesic[std::size_t(scene0[9])] = 3.0f;
    e.geodesic[std::size_t(scene0[2])] = 5.0f;
    validate(e);  // again, for the new values
    sort_by_geodesic(e);
    CHECK(eligible(e, 0, 1.0f) == std::vector<std::int64_t>{scene0[4], scene0[9]});
    CHECK(eligible(e, 0, 0.0f) == std::vector<std::int64_t>{scene0[4], scene0[9]});
    CHECK(eligible(e, 0, 4.0f) == std::vector<std::int64_t>{scene0[4], scene0[9]});
    CHECK(eligible(e, 0, 5.0f) == std::vector<std::int64_t>{scene0[4], scene0[9], scene0[2]});
    CHECK(eligible(e, 0, 9.0f) == scene0);                  // every one qualifies: dataset order
    CHECK(eligible(e, 1, 1.0f) == e.episodes_of_scene[1]);  // all tied at the least
}

TEST_CASE("SceneSlots draws uniformly among the eligible episodes only", "[geodesic_limit]") {
    Scenes s;
    validate(s.episodes);
    sort_by_geodesic(s.episodes);
    SceneLoader loader;
    SimConfig config = train_config(1, 1);
    config.scenes_resident = 1;
    SceneSlots slots(s.episodes, config, loader, {});
    Rng rng(3, 0);
    EpisodeChoice choice;
    REQUIRE(slots.next_episode(0, 0, rng, choice));
    const int scene = choice.scene;
    for (const float limit : {8.0f, 0.5f}) {  // half the episodes or so; then the fallback
        const auto expected = reference_eligible(s.episodes, scene, limit);
        REQUIRE(expected.size() < s.episodes.episodes_of_scene[std::size_t(scene)].size());
        std::map<std::int64_t, int> counts;
        const int draws = 2000 * int(expected.size());
        for (int d = 0; d < draws; ++d) {
            REQUIRE(slots.next_episode(0, 0, rng, choice, limit));  // step 0: no scene change
            REQUIRE(choice.scene == scene);
            counts[choice.episode] += 1;
        }
        std::set<std::int64_t> drawn, wanted(expected.begin(), expected.end());
        double chi2 = 0;
        for (const auto& [episode, count] : counts) {
            drawn.insert(episode);
            chi2 += (count - 2000.0) * (count - 2000.0) / 2000.0;
        }
        INFO("limit " << limit << ": " << expected.size() << " eligible, chi2 " << chi2);
        CHECK(drawn == wanted);
        // Pearson's chi-square with |eligible| - 1 degrees of freedom (at most 29): its
        // 0.9999 quantile is below 3 * dof + 20, so a uniform draw fails once in 10^4 seeds.
        CHECK(chi2 < 3.0 * double(expected.size() - 1) + 20.0);
    }
}

TEST_CASE("BatchSim: without a limit the episodes are those of a sim without geodesics",
          "[geodesic_limit]") {
    Scenes s;
    BatchSim plain(train_config(9, 1), s.plain);
    const auto reference = started_episodes(plain, 200);
    BatchSim with(train_config(9, 1), s.episodes);
    CHECK(with.max_episode_geodesic() == kInf);
    CHECK(started_episodes(with, 200) == reference);
    CHECK(with.stats().slots.scene_swaps > 0);  // the comparison covered scene swaps
    // A limit above every geodesic draws the same; so does one lifted again.
    with.set_max_episode_geodesic(20.0f);
    CHECK(started_episodes(with, 200) == reference);
    with.set_max_episode_geodesic(3.0f);
    (void)started_episodes(with, 50);
    with.set_max_episode_geodesic(kInf);
    with.reset(train_config(9, 1).seed);
    CHECK(started_episodes(with, 200) == reference);
}

TEST_CASE("BatchSim: a limit draws only eligible episodes, the same for any thread count",
          "[geodesic_limit]") {
    Scenes s;
    auto limit_at = [](int step) { return step < 100 ? 4.0f : step < 200 ? 9.0f : kInf; };
    BatchSim one(train_config(23, 1), s.episodes);
    const auto reference = started_episodes(one, 300, limit_at);
    for (int threads : {2, 3}) {
        BatchSim many(train_config(23, threads), s.episodes);
        CHECK(started_episodes(many, 300, limit_at) == reference);
    }
    // Under a limit of 4 m from the start, each start is within it or its scene's shortest.
    BatchSim limited(train_config(23, 2), s.episodes);
    limited.set_max_episode_geodesic(4.0f);
    const EpisodeSet& e = limited.episodes();
    for (std::int64_t episode : started_episodes(limited, 150)) {
        const auto allowed = reference_eligible(e, e.scene[std::size_t(episode)], 4.0f);
        CHECK(std::find(allowed.begin(), allowed.end(), episode) != allowed.end());
    }
    CHECK(limited.stats().episodes_started > 100);
}

TEST_CASE("BatchSim: evaluation ignores the limit", "[geodesic_limit]") {
    Scenes s;
    SimConfig config = train_config(7, 2);
    config.order = EpisodeOrder::Eval;
    BatchSim sim(config, s.episodes);
    sim.set_max_episode_geodesic(2.0f);
    std::multiset<std::int64_t> started;
    const auto all = started_episodes(sim, 1000);
    for (std::int64_t episode : all)
        if (episode >= 0) started.insert(episode);
    REQUIRE(sim.finished());
    CHECK(started.size() == s.episodes.size());
    for (std::int64_t e = 0; e < std::int64_t(s.episodes.size()); ++e) CHECK(started.count(e) == 1);
}

TEST_CASE("BatchSim: bad limits and geodesics are refused with the value", "[geodesic_limit]") {
    Scenes s;
    BatchSim sim(train_config(4, 1), s.episodes);
    sim.set_max_episode_geodesic(5.0f);
    for (const float bad : {kNaN, -1.0f, -kInf}) {
        CHECK_THROWS_WITH(sim.set_max_episode_geodesic(bad),
                          Catch::Contains("expected metres >= 0 (inf: no limit)"));
        CHECK(sim.max_episode_geodesic() == 5.0f);  // unchanged
    }
    sim.set_max_episode_geodesic(0.0f);  // allowed: every scene's shortest
    BatchSim plain(train_config(4, 1), s.plain);
    CHECK_THROWS_WITH(plain.set_max_episode_geodesic(5.0f),
                      Catch::Contains("90 of 90 episodes lack it"));
    plain.set_max_episode_geodesic(kInf);  // no limit needs no geodesics
    EpisodeSet partly = s.episodes;
    partly.geodesic[3] = kNaN;
    BatchSim some(train_config(4, 1), partly);
    CHECK_THROWS_WITH(some.set_max_episode_geodesic(5.0f),
                      Catch::Contains("1 of 90 episodes lack it"));
    EpisodeSet negative = s.episodes;
    negative.geodesic[7] = -0.5f;
    CHECK_THROWS_WITH(validate(negative), Catch::Contains("episode 7 has geodesic -0.5"));
    EpisodeSet short_column = s.episodes;
    short_column.geodesic.pop_back();
    CHECK_THROWS_WITH(validate(short_column),
                      Catch::Contains("geodesic: expected none or one per episode (90), got 89"));
}
