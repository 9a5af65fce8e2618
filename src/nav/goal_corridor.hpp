// GoalCorridor: what NavQuery keeps per agent to answer repeated geodesic distances to one
// fixed goal cheaply (NavQuery::set_goal, NavQuery::geodesic_distance(start, corridor)).
#pragma once

#include <array>
#include <cstdint>

#include "nav/navmesh.hpp"

namespace batchsim::nav {

// Per-agent state for repeated geodesic distances to one fixed goal (plain data, one per
// environment; holds no pointers into a NavQuery, so any thread's NavQuery for the same
// NavMesh may use it).
struct GoalCorridor {
    static constexpr int kMaxPolys = 256;  // habitat-sim's longest path, in polygons
    static constexpr int kMaxRivals = 16;  // other exits of the start polygon a reuse can check

    // Another exit of the cached search's start polygon: a new search from there expands
    // nothing new behind it while cost(start -> mid) + bound exceeds the goal's cost.
    struct Rival {
        Vec3 mid{};       // Detour's node position: the midpoint of the shared edge
        float bound = 0;  // total of its cheapest unexpanded node, less its cost from the start
    };

    const NavMesh* mesh = nullptr;  // the mesh set_goal snapped on; compared, never dereferenced
    Vec3 goal{};                    // as given: paths end at its projection on goal_poly
    Vec3 goal_point{};              // the goal snapped to the navmesh
    std::uint32_t goal_poly = 0;    // Detour polygon ref; 0 when the goal is off the navmesh

    // The last corridor-mode search: its polygons from its start polygon to goal_poly, and
    // what a later search must check to reuse them (search_certificate.hpp).
    std::array<std::uint32_t, kMaxPolys> polys{};
    int poly_count = 0;  // 0: nothing cached
    // to_goal[j]: the goal's cost less that of reaching polys[j + 1], where a search from
    // polys[j] was shown to repeat the rest of the corridor; NaN where it was not.
    std::array<float, kMaxPolys> to_goal{};
    std::array<Rival, kMaxRivals> rivals{};  // the other exits of polys[0]
    int rival_count = 0;

    // Where the subtrees of two exits of polys[0] touched in the cached search: a search from
    // a new start on polys[0] repeats the touch while |start - mid(a)| - |start - mid(b)|
    // stays at least `least` (search_certificate.hpp).
    static constexpr int kMaxLinks = 32;            // distinct pairs of exits that touched
    static constexpr int kWinnerSlot = kMaxRivals;  // names the exit into polys[1]
    struct Link {
        std::uint8_t a = 0, b = 0;  // a rival's index, or kWinnerSlot
        float least = 0;
    };
    std::array<Link, kMaxLinks> links{};
    int link_count = 0;

    // The polygon the last start snapped onto: start_snap.hpp's guess for the next start.
    std::uint32_t start_poly = 0;

    // The last snap of a point onto the navmesh (findNearestPoly's answer, found or proven):
    // a step's landing point is snapped again as the distance's start and as the next step's
    // start, and findNearestPoly gives the same point the same answer.
    struct Snap {
        Vec3 point{};           // as asked, compared bit for bit
        Vec3 snapped{};         // the answer's point
        std::uint32_t ref = 0;  // the answer's polygon; 0: nothing remembered
    };
    Snap last_snap;

    // The last tracked try_step: an agent pushing against a wall asks the same step again
    // (same start, same end), and try_step gives the same inputs the same answer.
    struct Step {
        Vec3 start{};
        Vec3 end{};
        Vec3 reached{};
        bool allow_sliding = false;
        bool valid = false;
    };
    Step last_step;

    // The corners the last full string pull of polys found after its start (string_pull.hpp):
    // a later pull that reaches one of them in the same state goes on exactly as that one did.
    static constexpr int kMaxPulled = 32;
    struct Corner {
        Vec3 point{};
        float to_next = 0;  // float distance to the next corner, as Detour's length sums it
        int apex = -1;      // polys index of the portal it is an apex of; -1: not reusable
    };
    std::array<Corner, kMaxPulled> pulled{};
    int pulled_count = 0;  // 0: nothing remembered (or the polys changed since)

    // The last corridor-mode answer: agents pushing against a wall ask again from the same
    // point, and the same inputs give the same answer.
    Vec3 last_start{};
    float last_distance = 0;
    bool has_last = false;
};

}  // namespace batchsim::nav
