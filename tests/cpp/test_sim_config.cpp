// Checks of sim/config.cpp and sim/episodes.cpp: what a simulation accepts.
#include <catch2/catch.hpp>

#include <limits>

#include "core/check.hpp"
#include "sim/config.hpp"
#include "sim/episodes.hpp"
#include "sim_scenes.hpp"

using namespace batchsim;
using namespace batchsim::sim;

TEST_CASE("SimConfig: the defaults are valid; bad fields are named", "[sim_config]") {
    CHECK_NOTHROW(validate(SimConfig{}));
    SimConfig c;
    c.num_envs = 0;
    CHECK_THROWS_WITH(validate(c), Catch::Contains("num_envs must be >= 1, got 0"));
    c = {};
    c.task.forward_step = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_WITH(validate(c), Catch::Contains("TaskConfig.forward_step"));
    c = {};
    c.task.max_episode_steps = 1999;
    CHECK_THROWS_WITH(validate(c), Catch::Contains("steps_per_scene must be greater than"));
    c = {};
    c.task.camera_height = std::numeric_limits<float>::infinity();
    CHECK_THROWS_WITH(validate(c), Catch::Contains("TaskConfig.camera_height"));
    c = {};
    c.num_threads = 0;
    CHECK_THROWS_WITH(validate(c), Catch::Contains("num_threads"));
}

TEST_CASE("SimConfig: enumerations by name, both ways", "[sim_config]") {
    CHECK(parse_episode_order("eval") == EpisodeOrder::Eval);
    CHECK(parse_geodesic_mode("exact") == GeodesicMode::Exact);
    CHECK(parse_autoreset("next_step") == AutoReset::NextStep);
    for (const auto mode : {AutoReset::SameStep, AutoReset::NextStep, AutoReset::Disabled})
        CHECK(parse_autoreset(name_of(mode)) == mode);
    CHECK(std::string(name_of(GeodesicMode::Corridor)) == "corridor");
    CHECK_THROWS_WITH(parse_episode_order("test"),
                      Catch::Equals("mode: expected 'train' or 'eval', got 'test'"));
    CHECK_THROWS_WITH(parse_autoreset("always"),
                      Catch::Contains("expected 'same_step', 'next_step' or 'disabled'"));
}

TEST_CASE("EpisodeSet: validation names the bad episode", "[sim_config]") {
    const auto scenes = test::standard_scenes();
    EpisodeSet good = test::random_episodes(scenes, 2, 1);
    good.start_rotation[0] = {0, 2, 0, 0};
    CHECK_NOTHROW(validate(good));
    CHECK(good.start_rotation[0][1] == Approx(1.0f));  // normalised
    CHECK(good.episodes_of_scene.size() == 3);
    CHECK(good.episodes_of_scene[1] == std::vector<std::int64_t>{2, 3});

    EpisodeSet bad = good;
    bad.scene[3] = 7;
    CHECK_THROWS_WITH(validate(bad), Catch::Contains("episode 3 is on scene 7"));
    bad = good;
    bad.goal[1][0] = std::numeric_limits<float>::infinity();
    CHECK_THROWS_WITH(validate(bad), Catch::Contains("episode 1 has a non-finite"));
    bad = good;
    bad.start_position[2][0] = 4.08e20f;  // finite, but its distance to the goal overflows
    CHECK_THROWS_WITH(validate(bad), Catch::Contains("episode 2 has a non-finite start_position "
                                                     "or goal, or one beyond 1e+06 m"));
    bad = good;
    bad.goal[3][1] = -1.0001e6f;
    CHECK_THROWS_WITH(validate(bad), Catch::Contains("episode 3 has a non-finite"));
    bad = good;
    bad.start_rotation[2] = {0, 0, 0, 0};
    CHECK_THROWS_WITH(validate(bad), Catch::Contains("episode 2 has start_rotation"));
    bad = good;
    bad.goal.pop_back();
    CHECK_THROWS_WITH(validate(bad), Catch::Contains("one row per episode"));
    bad = good;
    bad.scene_paths.push_back(scenes.dir->path / "unused.navmesh");
    CHECK_THROWS_WITH(validate(bad), Catch::Contains("has no episodes"));
    bad = good;
    bad.scene_paths[1] = scenes.dir->path / "missing.navmesh";
    CHECK_THROWS_AS(validate(bad), Error);
    CHECK_THROWS_WITH(validate(bad), Catch::Contains("missing.navmesh"));
    EpisodeSet empty;
    CHECK_THROWS_WITH(validate(empty), Catch::Contains("no episodes"));
}
