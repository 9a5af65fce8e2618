// The search certificate (src/nav/search_certificate.hpp) against plain Detour: whenever
// repeated_suffix says findPath from a new start repeats the cached corridor from polys[j],
// findPath from that start must return exactly polys[j..]. Starts jitter around the cached
// search's start (the start polygon's conditions, links between exits included) and lie on
// later corridor polygons, on the corridor tests' mazes and pillared rooms.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include <DetourNavMesh.h>
#include <DetourNavMeshQuery.h>

#include "core/random.hpp"
#include "goal_corridor_scenes.hpp"
#include "nav/islands.hpp"
#include "nav/nav_query.hpp"
#include "nav/search_certificate.hpp"

using namespace batchsim;
using namespace batchsim::test::corridor;
using nav::Vec3;

namespace {

constexpr int kNodes = 2048;  // NavQuery's node pool
constexpr float kExtents[3] = {2.0f, 4.0f, 2.0f};

struct Snap {
    dtPolyRef ref = 0;
    Vec3 point{};
};

struct Counts {
    long proven = 0, at_start = 0, with_links = 0, later = 0, mismatches = 0;
};

// Plain Detour, as NavQuery searches: a complete path or nothing.
class Searcher {
public:
    explicit Searcher(const nav::NavMesh& mesh) : mesh_(mesh.detour()) {
        REQUIRE(dtStatusSucceed(query_->init(&mesh_, kNodes)));
        filter_.setIncludeFlags(nav::kPolyFlagWalk);
        filter_.setExcludeFlags(nav::kPolyFlagDisabled);
        scratch_.resize(nav::certify_scratch_size(kNodes));
    }

    Snap snap(const Vec3& point) const {
        Snap out;
        query_->findNearestPoly(point.data(), kExtents, &filter_, &out.ref, out.point.data());
        return out;
    }

    std::vector<dtPolyRef> path(const Snap& from, const Snap& to) const {
        std::vector<dtPolyRef> polys(nav::GoalCorridor::kMaxPolys);
        int count = 0;
        if (query_->findPath(from.ref, to.ref, from.point.data(), to.point.data(), &filter_,
                             polys.data(), &count, int(polys.size())) != DT_SUCCESS)
            count = 0;
        polys.resize(std::size_t(count));
        return polys;
    }

    // Searches from `from` into the corridor and certifies it, as reuse_distance_to_goal does.
    bool cache(const Snap& from, const Snap& goal, nav::GoalCorridor& corridor) {
        corridor.goal_point = goal.point;
        corridor.goal_poly = goal.ref;
        const std::vector<dtPolyRef> polys = path(from, goal);
        corridor.poly_count = int(polys.size());
        std::copy(polys.begin(), polys.end(), corridor.polys.begin());
        if (polys.empty()) return false;
        nav::certify_search(*query_, filter_, corridor, scratch_);
        return true;
    }

    // Checks one new start against a fresh findPath wherever the certificate claims a repeat.
    void check(const nav::GoalCorridor& corridor, const Snap& start, Counts& counts) const {
        if (start.ref == 0) return;
        const int j = nav::repeated_suffix(corridor, mesh_, filter_, start.ref, start.point);
        if (j < 0) return;
        ++counts.proven;
        counts.at_start += j == 0;
        counts.with_links += j == 0 && corridor.link_count > 0;
        counts.later += j > 0;
        const Snap goal{corridor.goal_poly, corridor.goal_point};
        const std::vector<dtPolyRef> fresh = path(start, goal);
        const bool same = std::equal(fresh.begin(), fresh.end(), corridor.polys.begin() + j,
                                     corridor.polys.begin() + corridor.poly_count);
        counts.mismatches += !same;
    }

private:
    const dtNavMesh& mesh_;
    std::unique_ptr<dtNavMeshQuery, void (*)(dtNavMeshQuery*)> query_{dtAllocNavMeshQuery(),
                                                                      dtFreeNavMeshQuery};
    dtQueryFilter filter_;
    std::vector<int> scratch_;
};

Vec3 jitter(const Vec3& point, float reach, Rng& rng) {
    return {point[0] + (rng.uniform() * 2 - 1) * reach, point[1],
            point[2] + (rng.uniform() * 2 - 1) * reach};
}

}  // namespace

TEST_CASE("a certified repeat is exactly what findPath returns from the new start",
          "[search_certificate]") {
    Counts counts;
    for (const Scene& scene : synthetic_scenes()) {
        nav::NavQuery navigation(scene.mesh);
        Searcher searcher(*scene.mesh);
        Rng rng(21);
        nav::GoalCorridor corridor;
        for (int trial = 0; trial < 300; ++trial) {
            const Snap start = searcher.snap(navigation.random_point(rng));
            const Snap goal = searcher.snap(navigation.random_point(rng));
            if (start.ref == 0 || goal.ref == 0 || !searcher.cache(start, goal, corridor)) continue;
            for (int k = 0; k < 60; ++k) {
                const float reach = k < 40 ? 0.5f : 3.0f;  // mostly within the start polygon
                searcher.check(corridor, searcher.snap(jitter(start.point, reach, rng)), counts);
            }
        }
    }
    INFO(counts.proven << " proven: " << counts.at_start << " at the start polygon ("
                       << counts.with_links << " with links), " << counts.later << " later");
    CHECK(counts.mismatches == 0);
    CHECK(counts.with_links > 1000);  // the links between exits are exercised
    CHECK(counts.later > 100);
}
