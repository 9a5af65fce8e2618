#include "nav/search_certificate.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <utility>

#include <DetourCommon.h>
#include <DetourNode.h>

#include "nav/detour_polygon.hpp"
#include "nav/exit_links.hpp"

namespace batchsim::nav {
namespace {

// Node roots: the index of the ring node a node hangs from, or one of these.
constexpr int kUnlabelled = 0;
constexpr int kStart = -1;
constexpr int kWinner = -2;  // the goal's root: the corridor and everything hanging below it
// Margin on every "stays out of reach" comparison, in metres: re-offsetting a cost (a float
// sum of at most 256 terms of a few metres) by a new start rounds by far less than this.
constexpr float kRoundingMargin = 1e-3f;
// Detour's A* heuristic is the straight distance to the goal times this (H_SCALE).
constexpr float kHeuristicScale = 0.999f;
constexpr float kUnproven = std::numeric_limits<float>::quiet_NaN();

static_assert(sizeof(dtPolyRef) == sizeof(std::uint32_t), "GoalCorridor stores 32-bit refs");

// The "direct edge from the start is cheapest" argument needs costs equal to lengths.
bool unit_area_costs(const dtQueryFilter& filter) {
    for (int area = 0; area < DT_MAX_AREAS; ++area)
        if (filter.getAreaCost(area) != 1.0f) return false;
    return true;
}

// The search tree findPath left in the node pool; nodes are named by 1-based pool index.
struct Tree {
    Tree(dtNodePool& node_pool, std::span<int> scratch)
        : pool(node_pool),
          roots(scratch.first(size() + 1)),
          depths(scratch.subspan(size() + 1, size() + 1)),
          neighbour_of(scratch.subspan(2 * std::size_t(size() + 1), 2 * std::size_t(size() + 1))) {}
    dtNodePool& pool;
    std::span<int> roots;   // kStart, kWinner or the root's index
    std::span<int> depths;  // the corridor index where the node's chain of parents meets it
    // Per node, two corridor indices j >= 1 whose polygon has the node as a neighbour (0: none).
    std::span<int> neighbour_of;
    unsigned start = 0;
    unsigned goal = 0;
    unsigned path[GoalCorridor::kMaxPolys] = {};  // corridor index -> node
    bool one_tile = true;  // every touch stayed inside one tile (all node states 0)

    [[nodiscard]] unsigned size() const { return static_cast<unsigned>(pool.getNodeCount()); }
    [[nodiscard]] const dtNode& node(unsigned i) const {
        assert(i >= 1 && i <= size());
        return pool.getNodeAtIdx(1)[i - 1];
    }
    [[nodiscard]] bool on_path(unsigned i) const { return path[depths[i]] == i; }
};

// findPath keeps one node per polygon and tile side it was entered across.
unsigned node_across(dtNodePool& pool, const dtLink& link) {
    const unsigned char side = link.side != 0xff ? link.side >> 1 : 0;
    return pool.getNodeIdx(pool.findNode(link.ref, side));
}

// The goal polygon's node that findPath popped (it stops at the first).
unsigned popped_node(dtNodePool& pool, dtPolyRef ref) {
    dtNode* nodes[DT_MAX_STATES_PER_NODE];
    const unsigned count = pool.findNodes(ref, nodes, DT_MAX_STATES_PER_NODE);
    for (unsigned i = 0; i < count; ++i)
        if (nodes[i]->flags & DT_NODE_CLOSED) return pool.getNodeIdx(nodes[i]);
    return 0;
}

// Labels every node with its root and depth; false unless the goal's chain is the corridor.
bool label_tree(Tree& t, const GoalCorridor& corridor) {
    std::fill(t.roots.begin(), t.roots.end(), kUnlabelled);
    t.roots[t.start] = kStart;
    t.depths[t.start] = 0;
    t.path[0] = t.start;
    int index = corridor.poly_count - 1;
    for (unsigned i = t.goal; i != t.start; i = t.node(i).pidx, --index) {
        if (i == 0 || index < 1 || t.node(i).id != corridor.polys[index]) return false;
        t.roots[i] = kWinner;
        t.depths[i] = index;
        t.path[index] = i;
    }
    if (index != 0) return false;
    for (unsigned i = 1; i <= t.size(); ++i) {
        t.one_tile = t.one_tile && t.node(i).state == 0;
        if (t.roots[i] == kUnlabelled && t.node(i).pidx == t.start)
            t.roots[i] = int(i), t.depths[i] = 0;
    }
    for (unsigned i = 1; i <= t.size(); ++i) {
        unsigned top = i;
        while (top != 0 && t.roots[top] == kUnlabelled) top = t.node(top).pidx;
        if (top == 0) return false;
        for (unsigned k = i; t.roots[k] == kUnlabelled; k = t.node(k).pidx)
            t.roots[k] = t.roots[top], t.depths[k] = t.depths[top];
    }
    return true;
}

// Calls visit(a, b) for every touch findPath made: expanded node a looked at neighbour b.
template <typename Visit>
bool for_each_touch(Tree& t, const dtNavMesh& mesh, const dtQueryFilter& filter, Visit&& visit) {
    for (unsigned a = 1; a <= t.size(); ++a) {
        const dtNode& node = t.node(a);
        if (!(node.flags & DT_NODE_CLOSED) || a == t.goal) continue;  // the goal is not expanded
        if (a != t.start && node.pidx == 0) return false;
        const dtPolyRef parent = a == t.start ? 0 : t.node(node.pidx).id;  // not looked at
        const Polygon here = polygon(mesh, node.id);
        for (unsigned k = here.poly->firstLink; k != DT_NULL_LINK; k = here.tile->links[k].next) {
            const dtLink& link = here.tile->links[k];
            if (link.ref == 0 || link.ref == parent) continue;
            const unsigned b = node_across(t.pool, link);
            if (b == 0) {  // never looked at, as findPath skips unwalkable polygons
                if (walkable(filter, *polygon(mesh, link.ref).poly)) return false;
                continue;
            }
            t.one_tile = t.one_tile && link.side == 0xff;
            visit(a, b);
        }
    }
    return true;
}

// Condition (a) at the start polygon, for one touch.
bool roots_separate(const Tree& t, unsigned a, unsigned b) {
    if (a == t.start || t.roots[b] == kStart || t.node(b).pidx == t.start) return true;
    return t.roots[a] == t.roots[b];
}

// Fills neighbour_of: which corridor polygons polys[1..last] each node neighbours.
void find_corridor_neighbours(Tree& t, const dtNavMesh& mesh, const GoalCorridor& corridor,
                              int last) {
    std::fill(t.neighbour_of.begin(), t.neighbour_of.end(), 0);
    for (int j = 1; j <= last; ++j) {
        const Polygon here = polygon(mesh, corridor.polys[j]);
        for (unsigned k = here.poly->firstLink; k != DT_NULL_LINK; k = here.tile->links[k].next) {
            const unsigned x =
                here.tile->links[k].ref ? node_across(t.pool, here.tile->links[k]) : 0;
            if (x == 0) continue;
            int* slots = &t.neighbour_of[2 * std::size_t{x}];
            if (slots[0] == 0 || slots[0] == j)
                slots[0] = j;
            else if (slots[1] == 0)
                slots[1] = j;  // a third is dropped: merely conservative
        }
    }
}

// Counts, for the start indices j in [1, last], whether touch a -> b crossed the boundary of
// the subtree below polys[j + 1] (depth > j) without being harmless for a search from
// polys[j]: crossings (a difference array) minus excused.
void count_crossing(const Tree& t, unsigned a, unsigned b, int last, int* crossings, int* excused) {
    const int da = t.depths[a], db = t.depths[b];
    const int lo = std::max(std::min(da, db), 1), hi = std::min(std::max(da, db) - 1, last);
    if (lo > hi) return;
    ++crossings[lo];
    --crossings[hi + 1];
    if (da < db) {  // into the subtree: only polys[j] entering polys[j + 1] starts it
        if (t.on_path(a) && t.on_path(b) && db == da + 1 && da >= lo) ++excused[da];
        return;
    }
    // Out of the subtree: harmless into the new start polys[j] or one of its neighbours.
    if (t.on_path(b) && db >= lo) ++excused[db];
    for (const int j : {t.neighbour_of[2 * std::size_t{b}], t.neighbour_of[2 * std::size_t{b} + 1]})
        if (j >= lo && j <= hi) ++excused[j];  // 0 (no entry) is below lo
}

// The other exits of the start polygon, with condition (b)'s bounds.
bool record_rivals(const Tree& t, const dtNavMesh& mesh, const dtQueryFilter& filter,
                   GoalCorridor& corridor, unsigned* roots) {
    const Polygon start = polygon(mesh, corridor.polys[0]);
    for (unsigned k = start.poly->firstLink; k != DT_NULL_LINK; k = start.tile->links[k].next) {
        const dtLink& link = start.tile->links[k];
        if (link.ref == 0 || !walkable(filter, *polygon(mesh, link.ref).poly)) continue;
        const unsigned root = node_across(t.pool, link);
        if (root == 0 || t.node(root).pidx != t.start) return false;  // float-rounding oddity
        if (t.roots[root] == kWinner ||
            std::find(roots, roots + corridor.rival_count, root) != roots + corridor.rival_count)
            continue;
        if (corridor.rival_count == GoalCorridor::kMaxRivals) return false;
        const float* mid = t.node(root).pos;
        roots[corridor.rival_count] = root;
        corridor.rivals[corridor.rival_count++] = {{mid[0], mid[1], mid[2]},
                                                   std::numeric_limits<float>::infinity()};
    }
    for (unsigned i = 1; i <= t.size(); ++i) {
        if (!(t.node(i).flags & DT_NODE_OPEN) || t.roots[i] < 1) continue;
        for (int r = 0; r < corridor.rival_count; ++r)
            if (roots[r] == unsigned(t.roots[i]))
                corridor.rivals[r].bound = std::min(corridor.rivals[r].bound, t.node(i).total);
    }
    for (int r = 0; r < corridor.rival_count; ++r)
        corridor.rivals[r].bound -= t.node(roots[r]).cost;  // +inf (nothing left) stays +inf
    return true;
}

// Touches into nodes that two roots' subtrees touched ("mixed" nodes), for link_touch.
using Touch = std::pair<unsigned, unsigned>;
constexpr int kMaxMixed = 128;    // mixed nodes; more: no proof at the start polygon
constexpr int kMaxTouches = 512;  // touches into them; likewise

// The Link slot of node i's root (rivals as record_rivals listed their roots), or -1.
int slot_of(const Tree& t, const GoalCorridor& corridor, const unsigned* roots, unsigned i) {
    if (t.roots[i] == kWinner) return GoalCorridor::kWinnerSlot;
    for (int r = 0; r < corridor.rival_count; ++r)
        if (roots[r] == unsigned(t.roots[i])) return r;
    return -1;
}

// Asks of a new start that delta(x's root) - delta(y's root) >= least, where a root's delta
// = |start' - exit| - |start - exit| re-offsets all its costs; nothing where they share one.
bool require(const Tree& t, const unsigned* roots, unsigned x, unsigned y, float least,
             GoalCorridor& corridor) {
    if (t.roots[x] == t.roots[y]) return true;
    const int sx = slot_of(t, corridor, roots, x), sy = slot_of(t, corridor, roots, y);
    if (sx < 0 || sy < 0 || least > 0) return false;  // > 0: the cached search went otherwise
    auto ring_cost = [&](int slot) {                  // |start - exit| of the cached search
        return t.node(slot == GoalCorridor::kWinnerSlot ? t.path[1] : roots[slot]).cost;
    };
    return add_link(corridor, sx, sy, least + ring_cost(sx) - ring_cost(sy));
}

// Condition (a') for a touch x -> b of a mixed node b. b sits where its first toucher f put
// it and costs what its parent p gave it; both stay so while f still pops first and p still
// offers the cheapest way in:
//   delta(x) - delta(f) >= total(f) - total(x) + margin,
//   delta(x) - delta(p) >= via(p) - via(x) + margin, via(x) = cost(x) + |x b| (+ |b goal|).
bool link_touch(const Tree& t, const unsigned* roots, Touch touch, unsigned first,
                GoalCorridor& corridor) {
    const auto [x, b] = touch;
    const dtNode &in = t.node(x), &node = t.node(b), &f = t.node(first);
    float via = in.cost + dtVdist(in.pos, node.pos);
    if (node.id == corridor.goal_poly) via += dtVdist(node.pos, corridor.goal_point.data());
    return (x == first ||
            require(t, roots, x, first, f.total - in.total + kRoundingMargin, corridor)) &&
           (x == node.pidx ||
            require(t, roots, x, node.pidx, node.cost - via + kRoundingMargin, corridor));
}

// Records condition (a')'s links for the mixed nodes; false where it cannot.
bool link_mixed(Tree& t, const dtNavMesh& mesh, const dtQueryFilter& filter,
                std::span<const unsigned> mixed, const unsigned* roots, GoalCorridor& corridor) {
    std::fill(t.neighbour_of.begin(), t.neighbour_of.end(), 0);  // free after the first pass
    auto first = [&](unsigned b) -> int& { return t.neighbour_of[2 * std::size_t{b}]; };
    for (const unsigned b : mixed) t.neighbour_of[2 * std::size_t{b} + 1] = 1;
    Touch touches[kMaxTouches];
    int count = 0;
    for_each_touch(t, mesh, filter, [&](unsigned x, unsigned b) {
        if (t.neighbour_of[2 * std::size_t{b} + 1] == 0 || count > kMaxTouches) return;
        touches[std::min(count++, kMaxTouches - 1)] = {x, b};
        if (first(b) == 0 || t.node(x).total < t.node(unsigned(first(b))).total) first(b) = int(x);
    });
    if (count > kMaxTouches) return false;
    for (int k = 0; k < count; ++k)
        if (!link_touch(t, roots, touches[k], unsigned(first(touches[k].second)), corridor))
            return false;
    return true;
}

// Whether polys[j + 1]'s node sits where a search from polys[j] would put it.
bool entered_from(const Tree& t, const dtNavMesh& mesh, const GoalCorridor& corridor, int j) {
    Vec3 mid;
    const float* pos = t.node(t.path[j + 1]).pos;
    return edge_midpoint(mesh, polygon(mesh, corridor.polys[j]), corridor.polys[j + 1], mid) &&
           mid[0] == pos[0] && mid[1] == pos[1] && mid[2] == pos[2];
}

// Condition (b) at the start polygon.
bool rivals_out_of_reach(const GoalCorridor& corridor, const Vec3& start, float goal_cost) {
    for (int r = 0; r < corridor.rival_count; ++r) {
        const GoalCorridor::Rival& rival = corridor.rivals[r];
        if (dtVdist(start.data(), rival.mid.data()) + rival.bound <= goal_cost) return false;
    }
    return true;
}

// A search from `start` on polys[j] expands none of polys[j]'s neighbours but polys[j + 1].
bool ring_out_of_reach(const GoalCorridor& corridor, const dtNavMesh& mesh,
                       const dtQueryFilter& filter, const Polygon& here, int j, const Vec3& start,
                       float goal_cost) {
    for (unsigned k = here.poly->firstLink; k != DT_NULL_LINK; k = here.tile->links[k].next) {
        const dtLink& link = here.tile->links[k];
        if (link.ref == 0 || link.ref == corridor.polys[j + 1]) continue;
        if (!walkable(filter, *polygon(mesh, link.ref).poly)) continue;
        Vec3 mid;
        if (link.side != 0xff || !edge_midpoint(mesh, here, link.ref, mid)) return false;
        const float to_goal = dtVdist(mid.data(), corridor.goal_point.data());
        const float total = dtVdist(start.data(), mid.data()) +
                            (link.ref == corridor.goal_poly ? to_goal : to_goal * kHeuristicScale);
        if (total <= goal_cost) return false;
    }
    return true;
}

}  // namespace

void certify_search(const dtNavMeshQuery& query, const dtQueryFilter& filter,
                    GoalCorridor& corridor, std::span<int> scratch) {
    std::fill_n(corridor.to_goal.begin(), corridor.poly_count, kUnproven);
    corridor.rival_count = 0;
    corridor.link_count = 0;
    dtNodePool& pool = *query.getNodePool();
    // One polygon: start and goal share it, and findPath answers without searching.
    if (corridor.poly_count < 2 || !unit_area_costs(filter) ||
        scratch.size() < std::size_t(certify_scratch_size(pool.getNodeCount())))
        return;
    Tree t(pool, scratch);
    t.start = pool.getNodeIdx(pool.findNode(corridor.polys[0], 0));
    t.goal = popped_node(pool, corridor.polys[corridor.poly_count - 1]);
    if (t.start == 0 || t.goal == 0 || !label_tree(t, corridor)) return;
    const dtNavMesh& mesh = *query.getAttachedNavMesh();
    const int last = corridor.poly_count - 2;  // polys[last + 1] is the goal's polygon
    find_corridor_neighbours(t, mesh, corridor, last);
    int crossings[GoalCorridor::kMaxPolys + 1] = {}, excused[GoalCorridor::kMaxPolys + 1] = {};
    unsigned mixed[kMaxMixed];
    int mixed_count = 0;
    const bool complete = for_each_touch(t, mesh, filter, [&](unsigned a, unsigned b) {
        if (!roots_separate(t, a, b) && mixed_count <= kMaxMixed &&
            std::find(mixed, mixed + std::min(mixed_count, kMaxMixed), b) == mixed + mixed_count)
            mixed[std::min(mixed_count++, kMaxMixed - 1)] = b;
        count_crossing(t, a, b, last, crossings, excused);
    });
    if (!complete) return;
    // The goal's cost, less what reaching polys[j + 1]'s node position costs (the goal's
    // node cost includes the last leg to the goal point).
    const dtNode& goal = t.node(t.goal);
    auto prove = [&](int j) {
        const unsigned next = t.path[j + 1];
        corridor.to_goal[j] = next == t.goal ? dtVdist(goal.pos, corridor.goal_point.data())
                                             : goal.cost - t.node(next).cost;
    };
    unsigned roots[GoalCorridor::kMaxRivals];
    if (mixed_count <= kMaxMixed && entered_from(t, mesh, corridor, 0) &&
        record_rivals(t, mesh, filter, corridor, roots))
        prove(0);
    for (int j = 1, open = 0; j <= last && t.one_tile; ++j) {
        open += crossings[j];
        if (open == excused[j] && entered_from(t, mesh, corridor, j)) prove(j);
    }
    // Last: it reuses neighbour_of, which the crossings above were counted from.
    if (mixed_count > 0 && !std::isnan(corridor.to_goal[0]) &&
        !link_mixed(t, mesh, filter, {mixed, std::size_t(mixed_count)}, roots, corridor))
        corridor.to_goal[0] = kUnproven;
}

int repeated_suffix(const GoalCorridor& corridor, const dtNavMesh& mesh,
                    const dtQueryFilter& filter, dtPolyRef start_ref, const Vec3& start) {
    const auto* end = corridor.polys.data() + corridor.poly_count;
    const int j = int(std::find(corridor.polys.data(), end, start_ref) - corridor.polys.data());
    if (j >= corridor.poly_count - 1) return j == corridor.poly_count - 1 ? j : -1;
    if (std::isnan(corridor.to_goal[j])) return -1;
    const Polygon here = polygon(mesh, start_ref);
    Vec3 exit;
    if (!edge_midpoint(mesh, here, corridor.polys[j + 1], exit)) return -1;
    const float goal_cost =
        dtVdist(start.data(), exit.data()) + corridor.to_goal[j] + kRoundingMargin;
    const bool repeats =
        j == 0
            ? links_hold(corridor, start, exit) && rivals_out_of_reach(corridor, start, goal_cost)
            : ring_out_of_reach(corridor, mesh, filter, here, j, start, goal_cost);
    return repeats ? j : -1;
}

}  // namespace batchsim::nav
