// The GoalCorridor tests' scenes and walks (test_goal_corridor*.cpp): mazes, rooms with
// pillars and two storeys, seeded random walks like the simulator's (0.25 m forward steps with
// sliding, ±10° turns) through them, and corridor mode's distances compared against fresh
// searches along those walks.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "nav/goal_corridor.hpp"
#include "nav/nav_query.hpp"
#include "nav_scenes.hpp"

// A namespace of their own: these names (Scene, walk, compare) are too generic for test::.
namespace batchsim::test::corridor {

using nav::Vec3;

inline constexpr float kStep = 0.25f;                         // the simulator's forward step, m
inline constexpr float kTurn = 10.0f * 3.14159265f / 180.0f;  // and its turn
inline constexpr int kStepsPerEpisode = 200;
inline constexpr double kTolerance = 0.01;  // the promise: within 1 cm of a fresh search

// A 2 m tall wall (taller than the agent) along x (at z = c) or along z (at x = c), from
// a to b, with a doorway of width `door` centred at `at` unless door <= 0.
inline void wall(test::Mesh& mesh, bool along_x, float c, float a, float b, float at, float door) {
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
inline test::Mesh maze(int n, float size, unsigned seed, float loops) {
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
inline test::Mesh pillared_rooms(float w, float room, int pillars, unsigned seed) {
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
inline test::Mesh two_storeys(unsigned seed) {
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

inline std::vector<Scene> synthetic_scenes() {
    return {{"maze 8x8 cells of 2 m", test::bake(maze(8, 2.0f, 1, 0.15f))},
            {"maze 12x12 cells of 1.5 m", test::bake(maze(12, 1.5f, 2, 0.3f))},
            {"16 m hall, 4 m rooms, 40 pillars", test::bake(pillared_rooms(16, 4, 40, 3))},
            {"12 m hall, 6 m rooms, 60 pillars", test::bake(pillared_rooms(12, 6, 60, 4))},
            {"two storeys, stairs, pillars", test::bake(two_storeys(5))}};
}

// One episode's agent positions after each forward step. A directed agent heads for the next
// corner of the path (like a trained policy, with 20% random actions); the others act at
// random (and spend about half their forward steps pushing against walls).
inline std::vector<Vec3> walk(nav::NavQuery& query, Rng& rng, const Vec3& start, const Vec3& goal,
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
inline std::vector<Episode> episodes(nav::NavQuery& query, std::uint64_t seed, int count) {
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
inline Comparison compare(nav::NavQuery& query, const std::vector<Episode>& runs) {
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

}  // namespace batchsim::test::corridor
