#include <catch2/catch.hpp>

#include <set>

#include "sim/scene_slots.hpp"
#include "sim_scenes.hpp"

using namespace batchsim;
using namespace batchsim::sim;

namespace {

SimConfig slot_config(int envs, int k, EpisodeOrder order) {
    SimConfig c;
    c.num_envs = envs;
    c.scenes_resident = k;
    c.order = order;
    c.steps_per_scene = 100;
    c.task.max_episode_steps = 50;
    return c;
}

struct Fixture {
    test::SimScenes scenes = test::standard_scenes();
    EpisodeSet episodes = [this] {
        EpisodeSet set = test::random_episodes(scenes, 4, 1);
        validate(set);
        return set;
    }();
    SceneLoader loader;
};

}  // namespace

TEST_CASE("SceneSlots: training keeps a slot's scene until it is due, then moves",
          "[scene_slots]") {
    Fixture f;
    const SimConfig config = slot_config(4, 1, EpisodeOrder::Train);
    SceneSlots slots(f.episodes, config, f.loader, {});
    CHECK(slots.slot_count() == 1);
    std::vector<Rng> rngs(4);
    EpisodeChoice first, choice;
    REQUIRE(slots.next_episode(0, 0, rngs[0], first));
    CHECK(f.episodes.scene[std::size_t(first.episode)] == first.scene);
    CHECK(slots.resident(first.resident) != nullptr);
    for (std::size_t env = 1; env < 4; ++env)
        REQUIRE(slots.next_episode(env, 0, rngs[env], choice));
    (void)slots.collect();
    CHECK(slots.stats().resident_scenes == 2);  // the next one is loading already
    // Not due before step 100: same scene.
    REQUIRE(slots.next_episode(0, 99, rngs[0], choice));
    CHECK(choice.scene == first.scene);
    // Due: env 0 moves; the old scene stays while envs 1-3 use it.
    REQUIRE(slots.next_episode(0, 100, rngs[0], choice));
    CHECK(choice.scene != first.scene);
    CHECK(choice.resident != first.resident);
    (void)slots.collect();
    CHECK(slots.stats().resident_scenes == 2);
    for (std::size_t env = 1; env < 4; ++env)
        REQUIRE(slots.next_episode(env, 120, rngs[env], choice));
    const auto freed = slots.collect();
    REQUIRE(freed.size() == 1);
    CHECK(freed[0]->path == f.episodes.scene_paths[std::size_t(first.scene)]);
    CHECK(slots.stats().scene_swaps == 1);
    CHECK(slots.stats().env_switches == 4);
    CHECK(slots.stats().resident_scenes == 2);  // the new current and its successor
}

TEST_CASE("SceneSlots: evaluation hands out each episode once, then parks", "[scene_slots]") {
    Fixture f;
    const SimConfig config = slot_config(3, 2, EpisodeOrder::Eval);
    SceneSlots slots(f.episodes, config, f.loader, {});
    std::multiset<std::int64_t> seen;
    Rng rng;
    EpisodeChoice choice;
    int parked = 0;
    for (int round = 0; round < 20; ++round) {
        for (std::size_t env = 0; env < 3; ++env) {
            if (slots.next_episode(env, 0, rng, choice)) {
                CHECK(f.episodes.scene[std::size_t(choice.episode)] == choice.scene);
                CHECK(slots.resident(choice.resident)->path ==
                      f.episodes.scene_paths[std::size_t(choice.scene)]);
                seen.insert(choice.episode);
            } else {
                parked += 1;
            }
        }
        (void)slots.collect();
    }
    CHECK(seen.size() == f.episodes.size());
    CHECK(std::set<std::int64_t>(seen.begin(), seen.end()).size() == f.episodes.size());
    CHECK(parked > 0);
    CHECK(slots.exhausted());
    CHECK(slots.stats().resident_scenes == 0);
    CHECK(slots.stats().resident_bytes == 0);
}

TEST_CASE("SceneSlots: K is at most the number of scenes; kept scenes are reused",
          "[scene_slots]") {
    Fixture f;
    const SimConfig config = slot_config(8, 16, EpisodeOrder::Train);
    std::vector<std::shared_ptr<const ResidentScene>> keep;
    {
        SceneSlots slots(f.episodes, config, f.loader, {});
        CHECK(slots.slot_count() == 3);
        keep = slots.loaded_scenes();
    }
    const auto loads = f.loader.stats().loads;
    SceneSlots again(f.episodes, config, f.loader, keep);
    CHECK(f.loader.stats().loads == loads);  // nothing reloaded
}
