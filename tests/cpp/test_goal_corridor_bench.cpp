// The hidden [.goal_corridor_bench] case: GoalCorridor's accuracy and speed against plain
// geodesic_distance on the corridor tests' scenes (goal_corridor_scenes.hpp), and on
// build/test-data's procgen scenes when they are there. It prints the measurement.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <string>
#include <vector>

#include "assets/packed_scene.hpp"
#include "goal_corridor_scenes.hpp"
#include "nav/nav_query.hpp"
#include "nav/navmesh.hpp"

using namespace batchsim;
using namespace batchsim::test::corridor;
using nav::Vec3;

namespace {

// The packed procgen scenes, if built: $BATCHSIM_PROCGEN_SCENES, else the test-data folder.
std::vector<Scene> procgen_scenes() {
    const char* env = std::getenv("BATCHSIM_PROCGEN_SCENES");
    const std::filesystem::path dir = env ? env : "build/test-data/procgen/scene_datasets/procgen";
    std::vector<Scene> out;
    if (!std::filesystem::is_directory(dir)) return out;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (entry.path().extension() == ".bsscene") {
            const assets::PackedScene scene = assets::PackedScene::load(entry.path());
            out.push_back(
                {entry.path().stem().string(), nav::NavMesh::from_habitat_bytes(scene.navmesh())});
        }
    std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name < b.name; });
    return out;
}

// Queries per second over every position of every episode (best of 3); `begin` runs at the
// start of each episode and counts in the time.
template <typename Begin, typename Distance>
double queries_per_second(const std::vector<Episode>& runs, Begin&& begin, Distance&& distance) {
    double best = 0, sink = 0;
    for (int repeat = 0; repeat < 3; ++repeat) {
        long queries = 0;
        const auto start = std::chrono::steady_clock::now();
        for (const Episode& episode : runs) {
            begin(episode);
            for (const Vec3& position : episode.positions) sink += distance(episode, position);
            queries += long(episode.positions.size());
        }
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        best = std::max(best, double(queries) / took.count());
    }
    CHECK(sink > 0);  // uses the results, so the work cannot be optimised away
    return best;
}

// Accuracy and speed of corridor mode on one set of episodes.
void measure(const Scene& scene, const char* agents, const std::vector<Episode>& runs) {
    nav::NavQuery query(scene.mesh);
    Comparison c = compare(query, runs);
    std::sort(c.deviations.begin(), c.deviations.end());
    const double p999 = c.deviations[std::size_t(0.999 * double(c.deviations.size() - 1))];
    nav::GoalCorridor corridor;
    auto set_goal = [&](const Episode& e) { query.set_goal(corridor, e.goal); };
    auto in_mode = [&](bool exact) {
        return [&, exact](const Episode&, const Vec3& at) {
            return query.geodesic_distance(at, corridor, exact);
        };
    };
    const double fast = queries_per_second(runs, set_goal, in_mode(false));
    const double exact = queries_per_second(runs, set_goal, in_mode(true));
    const double plain = queries_per_second(
        runs, [](const Episode&) {},
        [&](const Episode& e, const Vec3& at) { return query.geodesic_distance(at, e.goal); });
    std::printf(
        "%-34s %-8s %6ld queries (%ld inf): identical %.5f, max %.3g m, p99.9 %.3g m, "
        "reused from a later polygon %.2f | queries/s: corridor %.0f, exact %.0f, "
        "geodesic_distance %.0f: x%.2f, x%.2f\n",
        scene.name.c_str(), agents, c.queries, c.infinite, double(c.identical) / double(c.queries),
        c.deviations.back(), p999, double(c.reused_later) / double(c.queries), fast, exact, plain,
        fast / exact, fast / plain);
    CHECK(c.beyond_tolerance == 0);
}

}  // namespace

// The measurement behind GoalCorridor's design: accuracy and speed per scene, for all agents
// and for directed ones alone.
TEST_CASE("corridor mode measurement", "[.goal_corridor_bench]") {
    std::vector<Scene> scenes = synthetic_scenes();
    for (Scene& scene : procgen_scenes()) scenes.push_back(std::move(scene));
    for (const Scene& scene : scenes) {
        nav::NavQuery query(scene.mesh);
        const std::vector<Episode> runs = episodes(query, 7, 500);
        std::vector<Episode> directed;
        std::copy_if(runs.begin(), runs.end(), std::back_inserter(directed),
                     [](const Episode& e) { return e.directed; });
        std::printf("%-34s %zu polygons\n", scene.name.c_str(), scene.mesh->polygon_count());
        measure(scene, "all", runs);
        measure(scene, "directed", directed);
    }
}
