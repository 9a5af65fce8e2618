// GoalCorridor: corridor-mode geodesic distances against fresh searches on random walks like
// the simulator's (0.25 m forward steps with sliding, ±10° turns) through mazes, rooms with
// pillars and two storeys. The hidden [.goal_corridor_bench] case prints the measurement and
// the speeds (it also reads build/test-data's procgen scenes when they are there).
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>
#include <random>
#include <string>

#include <DetourNavMeshQuery.h>

#include "assets/packed_scene.hpp"
#include "core/check.hpp"
#include "nav/islands.hpp"
#include "nav/nav_query.hpp"
#include "nav/start_snap.hpp"
#include "nav_scenes.hpp"

using namespace batchsim;
using nav::Vec3;

namespace {

constexpr float kStep = 0.25f;                         // the simulator's forward step, m
constexpr float kTurn = 10.0f * 3.14159265f / 180.0f;  // and its turn
constexpr int kStepsPerEpisode = 200;
constexpr double kTolerance = 0.01;  // the promise: within 1 cm of a fresh search

// A 2 m tall wall (taller than the agent) along x (at z = c) or along z (at x = c), from
// a to b, with a doorway of width `door` centred at `at` unless door <= 0.
void wall(test::Mesh& mesh, bool along_x, float c, float a, float b, float at, float door) {
    auto segment = [&](float from, float to) {
        if (to - from < 0.01f) return;
        if (along_x)
            test::add_box(mesh, from, 0, c - 0.05f, to, 2, c + 0.05f);
        else
            test::add_box(mesh, c - 0.05f, 0, from, c + 0.05f, 2, to);
    };
    if (door <= 0) return segment(a, b);
    segment(a, at - door / 2);
    segment(at + door / 2, b);
}

// n x n cells of `size` m: doorways along a random spanning tree, plus a fraction of extra
// doorways that make loops (where A* has real choices).
test::Mesh maze(int n, float size, unsigned seed, float loops) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0, 1);
    const float length = float(n) * size;
    test::Mesh mesh = test::floors({{0, 0, length, length}});
    // open[0][r * n + c]: the wall above row r (r >= 1) in column c; open[1]: left of column.
    const auto cells = std::size_t(n) * std::size_t(n);
    std::vector<int> open[2] = {std::vector<int>(cells), std::vector<int>(cells)};
    std::vector<int> seen(cells), stack{0};
    seen[0] = 1;
    while (!stack.empty()) {
        const int cell = stack.back(), r = cell / n, c = cell % n;
        int next[4], options = 0;
        for (int neighbour : {cell - n, cell + n, c > 0 ? cell - 1 : -1, c < n - 1 ? cell + 1 : -1})
            if (neighbour >= 0 && neighbour < n * n && !seen[neighbour])
                next[options++] = neighbour;
        if (options == 0) {
            stack.pop_back();
            continue;
        }
        const int to = next[rng() % options], tr = to / n, tc = to % n;
        if (tr != r)
            open[0][std::max(r, tr) * n + c] = 1;
        else
            open[1][std::max(c, tc) * n + r] = 1;
        seen[to] = 1;
        stack.push_back(to);
    }
    for (int k = n; k < n * n; ++k)
        for (auto& side : open) side[k] |= u(rng) < loops;
    for (int i = 1; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int side = 0; side < 2; ++side) {
                const float door = 0.6f + 0.6f * u(rng);
                const float at = (float(j) + 0.5f) * size + (u(rng) - 0.5f) * (size - door - 0.2f);
                wall(mesh, side == 0, float(i) * size, float(j) * size, float(j + 1) * size, at,
                     open[side][i * n + j] ? door : 0);
            }
    return mesh;
}

// A w x w hall split into rooms of `room` m by walls with wide doorways, and square pillars.
test::Mesh pillared_rooms(float w, float room, int pillars, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0, 1);
    test::Mesh mesh = test::floors({{0, 0, w, w}});
    for (float c = room; c < w - 0.5f; c += room)
        for (float a = 0; a < w - 0.01f; a += room)
            for (bool along_x : {true, false})
                wall(mesh, along_x, c, a, a + room, a + room * (0.25f + 0.5f * u(rng)),
                     1.0f + u(rng));
    for (int i = 0; i < pillars; ++i) {
        const float x = 0.5f + (w - 1) * u(rng), z = 0.5f + (w - 1) * u(rng);
        const float r = 0.1f + 0.25f * u(rng);
        test::add_box(mesh, x - r, 0, z - r, x + r, 2, z + r);
    }
    return mesh;
}

// Two storeys: a 12 x 12 m floor, a slab 2.7 m up over its far part, stairs of 0.15 m steps
// (within the climb limit) between them, and pillars on both: polygons overlap seen from
// above.
test::Mesh two_storeys(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0, 1);
    test::Mesh mesh = test::floors({{0, 0, 12, 12}});
    test::add_box(mesh, 0, 2.55f, 7, 12, 2.7f, 12);
    for (int k = 1; k <= 18; ++k)
        test::add_box(mesh, 0, 0, 1.6f + 0.3f * float(k - 1), 1.5f, 0.15f * float(k),
                      1.6f + 0.3f * float(k));
    for (int i = 0; i < 24; ++i) {
        const float x = 2.5f + 9 * u(rng), z = 0.5f + 11 * u(rng), r = 0.1f + 0.2f * u(rng);
        const bool upstairs = i % 3 == 0 && z > 7.5f;
        test::add_box(mesh, x - r, upstairs ? 2.7f : 0, z - r, x + r, upstairs ? 4.5f : 2.55f,
                      z + r);
    }
    return mesh;
}

struct Scene {
    std::string name;
    std::shared_ptr<const nav::NavMesh> mesh;
};

std::vector<Scene> synthetic_scenes() {
    return {{"maze 8x8 cells of 2 m", test::bake(maze(8, 2.0f, 1, 0.15f))},
            {"maze 12x12 cells of 1.5 m", test::bake(maze(12, 1.5f, 2, 0.3f))},
            {"16 m hall, 4 m rooms, 40 pillars", test::bake(pillared_rooms(16, 4, 40, 3))},
            {"12 m hall, 6 m rooms, 60 pillars", test::bake(pillared_rooms(12, 6, 60, 4))},
            {"two storeys, stairs, pillars", test::bake(two_storeys(5))}};
}

// One episode's agent positions after each forward step. A directed agent heads for the next
// corner of the path (like a trained policy, with 20% random actions); the others act at
// random (and spend about half their forward steps pushing against walls).
std::vector<Vec3> walk(nav::NavQuery& query, Rng& rng, const Vec3& start, const Vec3& goal,
                       bool directed) {
    float heading = rng.uniform() * 2 * 3.14159265f;
    Vec3 position = start;
    std::vector<Vec3> positions;
    for (int step = 0; step < kStepsPerEpisode; ++step) {
        const float u = rng.uniform();
        float turn = u < 0.6f ? 0 : u < 0.8f ? kTurn : -kTurn;
        if (directed && u < 0.8f) {
            const std::vector<Vec3> path = query.find_path(position, goal);
            const float want = path.size() < 2
                                   ? heading
                                   : std::atan2(path[1][0] - position[0], path[1][2] - position[2]);
            const float off = std::remainder(want - heading, 2 * 3.14159265f);
            turn = std::fabs(off) < kTurn ? 0 : off > 0 ? kTurn : -kTurn;
        }
        heading += turn;
        if (turn != 0) continue;
        const Vec3 ahead{position[0] + kStep * std::sin(heading), position[1],
                         position[2] + kStep * std::cos(heading)};
        position = query.try_step(position, ahead);
        positions.push_back(position);
    }
    return positions;
}

struct Episode {
    Vec3 goal;
    bool directed = false;
    std::vector<Vec3> positions;
};

// Episodes with a new random start and goal each; 5% of goals on any island; half the
// agents directed.
std::vector<Episode> episodes(nav::NavQuery& query, std::uint64_t seed, int count) {
    Rng rng(seed);
    std::vector<Episode> out;
    for (int e = 0; e < count; ++e) {
        const Vec3 start = query.random_point(rng);
        const int island = rng.uniform() < 0.05f ? -1 : query.island_of(start);
        const Vec3 goal = query.random_point(rng, island);
        const bool directed = rng.uniform() < 0.5f;
        out.push_back({goal, directed, walk(query, rng, start, goal, directed)});
    }
    return out;
}

struct Comparison {
    long queries = 0, identical = 0, beyond_tolerance = 0, infinite = 0;
    long reused_later = 0;           // answered from a corridor that starts behind the agent
    std::vector<double> deviations;  // |corridor - exact| per query, m
};

// Corridor mode against geodesic_distance(start, goal) over every episode.
Comparison compare(nav::NavQuery& query, const std::vector<Episode>& runs) {
    Comparison out;
    nav::GoalCorridor corridor;
    for (const Episode& episode : runs) {
        query.set_goal(corridor, episode.goal);
        for (const Vec3& position : episode.positions) {
            const float fast = query.geodesic_distance(position, corridor);
            const float exact = query.geodesic_distance(position, episode.goal);
            ++out.queries;
            out.infinite += std::isinf(exact);
            out.reused_later += corridor.poly_count > 0 && corridor.polys[0] != corridor.start_poly;
            out.identical +=
                std::bit_cast<std::uint32_t>(fast) == std::bit_cast<std::uint32_t>(exact);
            const double deviation = fast == exact ? 0.0
                                     : std::isinf(fast) || std::isinf(exact) || std::isnan(fast)
                                         ? std::numeric_limits<double>::infinity()
                                         : std::fabs(double(fast) - double(exact));
            out.beyond_tolerance += deviation > kTolerance;
            out.deviations.push_back(deviation);
        }
    }
    return out;
}

}  // namespace

TEST_CASE("corridor mode stays within 1 cm of a fresh search on seeded random walks",
          "[goal_corridor]") {
    for (const Scene& scene : synthetic_scenes()) {
        nav::NavQuery query(scene.mesh);
        const Comparison result = compare(query, episodes(query, 11, 12));
        INFO(scene.name << ": " << result.queries << " queries");
        REQUIRE(result.queries > 500);
        CHECK(result.beyond_tolerance == 0);
        CHECK(result.reused_later > 0);  // the reuse is not silently off
        CHECK(*std::max_element(result.deviations.begin(), result.deviations.end()) <= kTolerance);
    }
}

TEST_CASE("exact mode is bit-identical to geodesic_distance", "[goal_corridor]") {
    const std::vector<Scene> scenes = synthetic_scenes();
    nav::NavQuery query(scenes[1].mesh);
    Rng rng(5);
    nav::GoalCorridor corridor;
    for (int i = 0; i < 300; ++i) {
        const Vec3 goal = query.random_point(rng), start = query.random_point(rng);
        query.set_goal(corridor, goal);
        const float exact = query.geodesic_distance(start, corridor, true);
        REQUIRE(std::bit_cast<std::uint32_t>(exact) ==
                std::bit_cast<std::uint32_t>(query.geodesic_distance(start, goal)));
        // Exact mode leaves the cache alone, and corridor mode agrees on a fresh search.
        REQUIRE(corridor.poly_count == 0);
        REQUIRE(std::bit_cast<std::uint32_t>(query.geodesic_distance(start, corridor)) ==
                std::bit_cast<std::uint32_t>(exact));
    }
}

TEST_CASE("a tracked try_step is bit-identical to try_step", "[goal_corridor]") {
    long steps = 0, moved = 0;
    for (const Scene& scene : synthetic_scenes()) {
        nav::NavQuery query(scene.mesh);
        Rng rng(11);
        nav::GoalCorridor corridor;
        for (int e = 0; e < 40; ++e) {
            Vec3 position = query.random_point(rng);
            query.set_goal(corridor, query.random_point(rng));
            float heading = rng.uniform() * 6.2831853f;
            for (int step = 0; step < 120; ++step, ++steps) {
                heading += rng.uniform() < 0.3f ? kTurn : 0.0f;
                const Vec3 ahead{position[0] + kStep * std::sin(heading), position[1],
                                 position[2] + kStep * std::cos(heading)};
                const bool slide = step % 7 != 0;
                const Vec3 plain = query.try_step(position, ahead, slide);
                const Vec3 tracked = query.try_step(position, ahead, slide, corridor);
                INFO(scene.name << " episode " << e << " step " << step);
                for (int k = 0; k < 3; ++k)
                    REQUIRE(std::bit_cast<std::uint32_t>(plain[k]) ==
                            std::bit_cast<std::uint32_t>(tracked[k]));
                moved += plain != position;
                position = tracked;
            }
        }
    }
    CHECK(moved > steps / 2);
}

TEST_CASE("corridor and exact modes agree on unreachable and degenerate cases", "[goal_corridor]") {
    // Two rooms 2 m apart: two islands.
    nav::NavQuery query(test::bake(test::floors({{0, 0, 4, 4}, {6, 0, 10, 4}})));
    const Vec3 left{2, 0, 2}, right{8, 0, 2}, off_mesh{2, 0, 40};
    const float inf = std::numeric_limits<float>::infinity();
    nav::GoalCorridor corridor;
    for (bool exact : {false, true}) {
        query.set_goal(corridor, right);
        CHECK(query.geodesic_distance(left, corridor, exact) == inf);      // other island
        CHECK(query.geodesic_distance(off_mesh, corridor, exact) == inf);  // start off the mesh
        CHECK(query.geodesic_distance({8, 0, 1}, corridor, exact) == Approx(1).margin(1e-4));
        CHECK(query.geodesic_distance(right, corridor, exact) ==
              query.geodesic_distance(right, right));  // same point: 0
        query.set_goal(corridor, off_mesh);
        CHECK(query.geodesic_distance(left, corridor, exact) == inf);  // goal off the mesh
        query.set_goal(corridor, {std::nanf(""), 0, 0});
        CHECK(query.geodesic_distance(left, corridor, exact) == inf);
    }
}

TEST_CASE("set_goal drops the cached path", "[goal_corridor]") {
    nav::NavQuery query(synthetic_scenes()[0].mesh);
    Rng rng(3);
    nav::GoalCorridor corridor;
    const Vec3 start = query.random_point(rng);
    for (int i = 0; i < 50; ++i) {
        const Vec3 goal = query.random_point(rng);
        query.set_goal(corridor, goal);
        CHECK(corridor.poly_count == 0);
        // The same start each time: only the goal changed, so a stale path would show.
        REQUIRE(std::bit_cast<std::uint32_t>(query.geodesic_distance(start, corridor)) ==
                std::bit_cast<std::uint32_t>(query.geodesic_distance(start, goal)));
    }
}

TEST_CASE("a corridor works with any NavQuery of its navmesh, and only those", "[goal_corridor]") {
    const auto mesh = synthetic_scenes()[2].mesh;
    nav::NavQuery first(mesh), second(mesh);
    const std::vector<Episode> runs = episodes(first, 21, 4);
    nav::GoalCorridor corridor;
    for (const Episode& episode : runs) {
        first.set_goal(corridor, episode.goal);
        for (std::size_t i = 0; i < episode.positions.size(); ++i) {
            nav::NavQuery& query = i % 3 == 0 ? first : second;  // searches interleave
            const Vec3& at = episode.positions[i];
            REQUIRE(std::fabs(query.geodesic_distance(at, corridor) -
                              second.geodesic_distance(at, episode.goal)) <= kTolerance);
        }
    }
    nav::NavQuery stranger(test::bake(test::floors({{0, 0, 4, 4}})));
    try {
        (void)stranger.geodesic_distance({1, 0, 1}, corridor);
        FAIL("expected an InvalidArgument error");
    } catch (const Error& e) {
        CHECK(e.kind() == Error::Kind::InvalidArgument);
    }
}

namespace {

// A point near `point`'s polygon: on it, on one of its edges, just off an edge (agents slide
// along walls), or above or below it.
Vec3 probe(const dtNavMesh& mesh, dtPolyRef ref, const Vec3& point, Rng& rng, int kind) {
    const dtMeshTile* tile = nullptr;
    const dtPoly* poly = nullptr;
    mesh.getTileAndPolyByRefUnsafe(ref, &tile, &poly);
    const int k = int(rng.uniform() * float(poly->vertCount));
    const float* a = nav::polygon_corner(*tile, *poly, k);
    const float* b = nav::polygon_corner(*tile, *poly, (k + 1) % poly->vertCount);
    const float t = rng.uniform();
    const Vec3 on_edge{a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t,
                       a[2] + (b[2] - a[2]) * t};
    const float off =
        std::pow(10.0f, 2 * rng.uniform() - 4) * (rng.uniform() < 0.5f ? -1.0f : 1.0f);
    switch (kind) {
        case 0: return point;
        case 1: return on_edge;
        case 2: return {on_edge[0] + off, on_edge[1], on_edge[2] - off};
        default: return {point[0], point[1] + 3000 * off, point[2]};  // 0.3 to 30 cm
    }
}

}  // namespace

TEST_CASE("the start-snapping shortcut answers as findNearestPoly does", "[goal_corridor]") {
    const float extents[3] = {2, 4, 2};  // NavQuery's snapping box
    dtQueryFilter filter;
    filter.setIncludeFlags(nav::kPolyFlagWalk);
    filter.setExcludeFlags(nav::kPolyFlagDisabled);
    for (const Scene& scene : synthetic_scenes()) {
        nav::NavQuery query(scene.mesh);
        std::unique_ptr<dtNavMeshQuery, void (*)(dtNavMeshQuery*)> raw(dtAllocNavMeshQuery(),
                                                                       dtFreeNavMeshQuery);
        REQUIRE(dtStatusSucceed(raw->init(&scene.mesh->detour(), 2048)));
        nav::StartSnap shortcut;
        Rng rng(9);
        int answered = 0;
        for (int i = 0; i < 4000; ++i) {
            const Vec3 on = query.random_point(rng);
            dtPolyRef guess = 0, expected = 0, got = 0;
            Vec3 nearest{}, snapped{};
            raw->findNearestPoly(on.data(), extents, &filter, &guess, nearest.data());
            const Vec3 point = probe(scene.mesh->detour(), guess, on, rng, i % 4);
            raw->findNearestPoly(point.data(), extents, &filter, &expected, nearest.data());
            if (!shortcut.snap(*raw, filter, guess, point, got, snapped)) continue;
            ++answered;
            INFO(scene.name << ": probe " << i);
            REQUIRE(got == expected);
            for (int k = 0; k < 3; ++k)
                REQUIRE(std::bit_cast<std::uint32_t>(snapped[k]) ==
                        std::bit_cast<std::uint32_t>(nearest[k]));
        }
        INFO(scene.name);
        CHECK(answered > 1200);  // the shortcut does answer often
    }
}

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
