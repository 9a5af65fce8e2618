#include "nav/nav_query.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include <DetourCommon.h>
#include <DetourNavMeshQuery.h>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "nav/habitat_format.hpp"
#include "nav/islands.hpp"
#include "nav/nav_query_impl.hpp"
#include "nav/nearest_poly.hpp"
#include "nav/search_certificate.hpp"
#include "nav/surface_move.hpp"

namespace batchsim::nav {
namespace {

// is_navigable: the snapped point must be within this horizontal distance (habitat-sim).
constexpr float kNavigableXzEps = 0.01f;
// try_step: a result that snaps onto another island (through an infinitely thin wall) is
// pulled this far towards its polygon's centre, as habitat-sim does.
constexpr float kThinWallNudge = 1e-4f;
// find_path: endpoints this close in every coordinate are the same point (length 0).
constexpr float kSamePointEps = 1e-5f;
constexpr float kInfinity = std::numeric_limits<float>::infinity();

Vec3 to_vec(const float* v) {
    return {v[0], v[1], v[2]};
}

// Finite and within the range Detour handles; anything else is off the navmesh.
bool finite(const Vec3& v) {
    return std::fabs(v[0]) <= kMaxNavCoordinate && std::fabs(v[1]) <= kMaxNavCoordinate &&
           std::fabs(v[2]) <= kMaxNavCoordinate;
}

dtQueryFilter habitat_filter() {
    dtQueryFilter filter;
    filter.setIncludeFlags(kPolyFlagWalk);
    filter.setExcludeFlags(kPolyFlagDisabled);
    return filter;
}

bool same_point(const Vec3& a, const Vec3& b) {
    for (int i = 0; i < 3; ++i)
        if (std::fabs(a[i] - b[i]) > kSamePointEps) return false;
    return true;
}

}  // namespace

NavQuery::NavQuery(std::shared_ptr<const NavMesh> mesh) : impl_(std::make_unique<Impl>()) {
    BATCHSIM_CHECK(mesh != nullptr, InvalidArgument, "NavQuery needs a navmesh");
    impl_->mesh = std::move(mesh);
    impl_->filter = habitat_filter();
    impl_->node_scratch.resize(certify_scratch_size(kNodePoolSize));
    BATCHSIM_CHECK(
        impl_->query && dtStatusSucceed(impl_->query->init(&impl_->mesh->detour(), kNodePoolSize)),
        Internal, "out of memory creating a navmesh query");
}
NavQuery::NavQuery(NavQuery&&) noexcept = default;
NavQuery::~NavQuery() = default;

const NavMesh& NavQuery::mesh() const {
    return *impl_->mesh;
}

NavQuery::Impl::Snapped NavQuery::Impl::nearest(const Vec3& point, const float* extents) const {
    Snapped out;
    if (!finite(point)) return out;
    float snapped[3];
    const dtStatus status =
        query->findNearestPoly(point.data(), extents, &filter, &out.ref, snapped);
    if (dtStatusFailed(status) || out.ref == 0) return Snapped{};
    out.point = to_vec(snapped);
    return out;
}

// Like nearest() but only among the polygons of one island.
NavQuery::Impl::Snapped NavQuery::Impl::nearest_in_island(const Vec3& point, int island) const {
    Snapped best;
    constexpr int kMaxCandidates = 512;
    dtPolyRef candidates[kMaxCandidates];
    int count = 0;
    if (!finite(point)) return best;
    query->queryPolygons(point.data(), kSnapExtents, &filter, candidates, &count, kMaxCandidates);
    float best_distance = std::numeric_limits<float>::infinity();
    for (int i = 0; i < count; ++i) {
        if (mesh->islands().island_of(candidates[i]) != island) continue;
        float closest[3];
        if (dtStatusFailed(
                query->closestPointOnPoly(candidates[i], point.data(), closest, nullptr)))
            continue;
        const float distance = dtVdistSqr(closest, point.data());
        if (distance < best_distance)
            best_distance = distance, best = {candidates[i], to_vec(closest)};
    }
    return best;
}

float NavQuery::Impl::height_on(dtPolyRef ref, const Vec3& point) const {
    float height = point[1];
    query->getPolyHeight(ref, point.data(), &height);  // keeps point's y if outside the polygon
    return height;
}

std::optional<SurfaceMove> NavQuery::Impl::move(const Snapped& from, const Vec3& end,
                                                bool allow_sliding) {
    if (!allow_sliding)
        return move_without_sliding(mesh->detour(), filter, from.ref, from.point, end);
    dtPolyRef visited[kMaxStepPolys];
    int visited_count = 0;
    SurfaceMove out;
    query->moveAlongSurface(from.ref, from.point.data(), end.data(), &filter, out.position.data(),
                            visited, &visited_count, kMaxStepPolys);
    if (visited_count == 0) return std::nullopt;
    out.polygon = visited[visited_count - 1];
    return out;
}

Vec3 NavQuery::Impl::nudge_towards_centre(dtPolyRef ref, const Vec3& point) const {
    const dtMeshTile* tile = nullptr;
    const dtPoly* poly = nullptr;
    mesh->detour().getTileAndPolyByRefUnsafe(ref, &tile, &poly);
    float centre[3] = {0, 0, 0};
    for (int k = 0; k < poly->vertCount; ++k)
        dtVadd(centre, centre, polygon_corner(*tile, *poly, k));
    dtVscale(centre, centre, 1.0f / static_cast<float>(poly->vertCount));
    float towards[3];
    dtVsub(towards, centre, point.data());
    dtVnormalize(towards);
    Vec3 out;
    dtVmad(out.data(), point.data(), towards, kThinWallNudge);
    return out;
}

std::optional<Vec3> NavQuery::snap_point(const Vec3& point, int island) {
    const Impl::Snapped snapped =
        island < 0 ? impl_->nearest(point, kSnapExtents) : impl_->nearest_in_island(point, island);
    if (snapped.ref == 0) return std::nullopt;
    return snapped.point;
}

bool NavQuery::is_navigable(const Vec3& point, float max_y_delta) {
    const Impl::Snapped snapped = impl_->nearest(point, kSnapExtents);
    if (snapped.ref == 0) return false;
    const float dx = snapped.point[0] - point[0], dz = snapped.point[2] - point[2];
    return std::fabs(snapped.point[1] - point[1]) <= max_y_delta &&
           dx * dx + dz * dz <= kNavigableXzEps * kNavigableXzEps;
}

int NavQuery::island_of(const Vec3& point) {
    return impl_->mesh->islands().island_of(impl_->nearest(point, kSnapExtents).ref);
}

Vec3 NavQuery::random_point(Rng& rng, int island) {
    if (island >= 0) (void)impl_->mesh->island(island);  // range check
    const dtPolyRef ref = impl_->mesh->islands().pick_polygon(island, rng.uniform());
    const dtMeshTile* tile = nullptr;
    const dtPoly* poly = nullptr;
    impl_->mesh->detour().getTileAndPolyByRefUnsafe(ref, &tile, &poly);
    float corners[3 * DT_VERTS_PER_POLYGON];
    float areas[DT_VERTS_PER_POLYGON];
    copy_polygon_corners(*tile, *poly, corners);
    const float s = rng.uniform(), t = rng.uniform();
    float point[3];
    dtRandomPointInConvexPoly(corners, poly->vertCount, areas, s, t, point);
    Vec3 out = to_vec(point);
    out[1] = impl_->height_on(ref, out);
    return out;
}

std::optional<float> NavQuery::Impl::settled_distance(const Snapped& from,
                                                      const Snapped& to) const {
    if (from.ref == 0 || to.ref == 0) return kInfinity;
    if (same_point(from.point, to.point)) return dtVdist(from.point.data(), to.point.data());
    if (mesh->islands().island_of(from.ref) != mesh->islands().island_of(to.ref)) return kInfinity;
    return std::nullopt;
}

bool NavQuery::Impl::search(const Snapped& from, const Snapped& to, dtPolyRef* polys, int* count) {
    // Like habitat-sim, anything but a complete search (partial path, node pool or buffer
    // exhausted) counts as unreachable.
    return query->findPath(from.ref, to.ref, from.point.data(), to.point.data(), &filter, polys,
                           count, kMaxPathPolys) == DT_SUCCESS;
}

int NavQuery::Impl::straight_path(const Vec3& start, const Vec3& end, const dtPolyRef* polys,
                                  int count, float* corners) const {
    int corner_count = 0;
    if (query->findStraightPath(start.data(), end.data(), polys, count, corners, nullptr, nullptr,
                                &corner_count, kMaxPathPolys) != DT_SUCCESS)
        return 0;
    return corner_count;
}

float NavQuery::Impl::path_length(const Vec3& start, const Vec3& end, const dtPolyRef* polys,
                                  int count) const {
    float corners[3 * kMaxPathPolys];
    const int corner_count = straight_path(start, end, polys, count, corners);
    if (corner_count == 0) return kInfinity;
    double length = 0;
    for (std::size_t i = 1; i < std::size_t(corner_count); ++i)
        length += dtVdist(&corners[3 * (i - 1)], &corners[3 * i]);
    return static_cast<float>(length);
}

std::vector<Vec3> NavQuery::find_path(const Vec3& start, const Vec3& end) {
    const Impl::Snapped from = impl_->nearest(start, kSnapExtents);
    const Impl::Snapped to = impl_->nearest(end, kSnapExtents);
    const std::optional<float> settled = impl_->settled_distance(from, to);
    if (settled)
        return std::isinf(*settled) ? std::vector<Vec3>{} : std::vector{from.point, to.point};
    dtPolyRef polys[kMaxPathPolys];
    int poly_count = 0;
    if (!impl_->search(from, to, polys, &poly_count)) return {};
    float corners[3 * kMaxPathPolys];
    const int corner_count = impl_->straight_path(start, end, polys, poly_count, corners);
    std::vector<Vec3> path(static_cast<std::size_t>(corner_count));
    for (std::size_t i = 0; i < path.size(); ++i) path[i] = to_vec(&corners[3 * i]);
    return path;
}

float NavQuery::geodesic_distance(const Vec3& start, const Vec3& end) {
    const Impl::Snapped from = impl_->nearest(start, kSnapExtents);
    const Impl::Snapped to = impl_->nearest(end, kSnapExtents);
    if (const std::optional<float> settled = impl_->settled_distance(from, to)) return *settled;
    dtPolyRef polys[kMaxPathPolys];
    int poly_count = 0;
    if (!impl_->search(from, to, polys, &poly_count)) return kInfinity;
    return impl_->path_length(start, end, polys, poly_count);
}

// start_snap's answer for nearest(point) from `guess` (0: none), where it proves one.
std::optional<NavQuery::Impl::Snapped> NavQuery::Impl::proven_snap(dtPolyRef guess,
                                                                   const Vec3& point) {
    Snapped out;
    if (guess != 0 && finite(point) &&
        start_snap.snap(*query, filter, guess, point, out.ref, out.point))
        return out;
    return std::nullopt;
}

// nearest(point), or start_snap's answer from `guess` where it proves it.
NavQuery::Impl::Snapped NavQuery::Impl::snap_near(dtPolyRef guess, const Vec3& point) {
    if (const std::optional<Snapped> proven = proven_snap(guess, point)) return *proven;
    return nearest(point, kSnapExtents);
}

NavQuery::Impl::Snapped NavQuery::Impl::remembered_snap(GoalCorridor::Snap& memo, dtPolyRef guess,
                                                        const Vec3& point) {
    if (memo.ref != 0 && same_bits(point, memo.point)) return {memo.ref, memo.snapped};
    const Snapped out = snap_near(guess, point);
    if (out.ref != 0) memo = {point, out.point, out.ref};
    return out;
}

// Whether nearest(point) lies on `island`, from one polygon query: settled at once when every
// polygon findNearestPoly would consider is on that island or none is, else by its choice.
bool NavQuery::Impl::nearest_on_island(const Vec3& point, int island) const {
    const Islands& islands = mesh->islands();
    constexpr int kMaxCandidates = 256;
    dtPolyRef candidates[kMaxCandidates];
    int count = 0;
    if (!finite(point)) return islands.island_of(0) == island;
    query->queryPolygons(point.data(), kSnapExtents, &filter, candidates, &count, kMaxCandidates);
    if (count == kMaxCandidates)  // maybe more: let findNearestPoly see them all
        return islands.island_of(nearest(point, kSnapExtents).ref) == island;
    int on_island = 0;
    for (int i = 0; i < count; ++i) on_island += islands.island_of(candidates[i]) == island;
    if (count > 0 && on_island == count) return true;
    if (on_island == 0) return islands.island_of(0) == island;
    return islands.island_of(nearest_polygon(*query, point.data(), candidates, count)) == island;
}

// nearest_on_island(point, island), settled by start_snap from `guess` where it proves
// nearest(point): a step's end and landing point lie on or beside its polygons.
bool NavQuery::Impl::snaps_onto_island(dtPolyRef guess, const Vec3& point, int island,
                                       GoalCorridor::Snap* memo) {
    const Islands& islands = mesh->islands();
    if (memo && memo->ref != 0 && same_bits(point, memo->point))
        return islands.island_of(memo->ref) == island;
    // The grid's answer is cheaper, but a proven snap also fills the memo for later snaps.
    auto grid_settles = [&] {
        return island_grid.settles(*query, filter, islands, guess, point, kSnapExtents, island);
    };
    if (!memo && grid_settles()) return true;
    if (const std::optional<Snapped> proven = proven_snap(guess, point)) {
        if (memo) *memo = {point, proven->point, proven->ref};
        return islands.island_of(proven->ref) == island;
    }
    if (memo && grid_settles()) return true;
    return nearest_on_island(point, island);
}

Vec3 NavQuery::Impl::step(const Vec3& start, const Vec3& end, bool allow_sliding, dtPolyRef& guess,
                          GoalCorridor::Snap* memo) {
    const bool guessing = guess != 0;
    const Snapped from = memo ? remembered_snap(*memo, guess, start) : snap_near(guess, start);
    const Islands& islands = mesh->islands();
    const int island = islands.island_of(from.ref);
    if (guessing) guess = from.ref;
    // The end must snap onto the start's island (this also rejects a huge `end`).
    const bool end_ok = guessing ? snaps_onto_island(from.ref, end, island)
                                 : islands.island_of(nearest(end, kSnapExtents).ref) == island;
    if (from.ref == 0 || !end_ok) return start;
    const std::optional<SurfaceMove> moved = move(from, end, allow_sliding);
    if (!moved) return start;
    Vec3 out = moved->position;
    out[1] = height_on(moved->polygon, out);
    // A result that snaps to another island went through an infinitely thin wall.
    const int landed_island = islands.island_of(moved->polygon);
    const bool through_wall =
        guessing ? !snaps_onto_island(moved->polygon, out, landed_island, memo)
                 : islands.island_of(nearest(out, kSnapExtents).ref) != landed_island;
    if (through_wall) out = nudge_towards_centre(moved->polygon, out);
    if (guessing) guess = moved->polygon;
    return out;
}

Vec3 NavQuery::try_step(const Vec3& start, const Vec3& end, bool allow_sliding) {
    dtPolyRef no_guess = 0;  // every snap searches
    return impl_->step(start, end, allow_sliding, no_guess);
}

float NavQuery::distance_to_closest_obstacle(const Vec3& point, float max_search_radius) {
    const Impl::Snapped snapped = impl_->nearest(point, kSnapExtents);
    if (snapped.ref == 0) return 0.0f;
    float distance = 0, hit[3], normal[3];
    const dtStatus status =
        impl_->query->findDistanceToWall(snapped.ref, snapped.point.data(), max_search_radius,
                                         &impl_->filter, &distance, hit, normal);
    return dtStatusFailed(status) ? 0.0f : distance;
}

TopDownView NavQuery::topdown_view(float meters_per_pixel, float height, float max_y_delta) {
    BATCHSIM_CHECK(std::isfinite(meters_per_pixel) && meters_per_pixel > 0, InvalidArgument,
                   str("meters_per_pixel must be positive, got ", meters_per_pixel));
    const auto [lo, hi] = impl_->mesh->bounds();
    // Float division, as habitat-sim: 10 m / 0.1f is exactly 100 cells in float.
    const double rows = std::floor((hi[2] - lo[2]) / meters_per_pixel);
    const double cols = std::floor((hi[0] - lo[0]) / meters_per_pixel);
    BATCHSIM_CHECK(rows * cols <= double(1 << 28), InvalidArgument,
                   str("meters_per_pixel ", meters_per_pixel, " gives a ", rows, " x ", cols,
                       " view; use a coarser resolution"));
    TopDownView view{static_cast<int>(rows), static_cast<int>(cols), {}};
    view.navigable.reserve(std::size_t(view.rows) * std::size_t(view.cols));
    // habitat-sim's grid: cell (r, c) samples (min x + c mpp, height, min z + r mpp),
    // accumulated in float as it does.
    float z = lo[2];
    for (int r = 0; r < view.rows; ++r, z += meters_per_pixel) {
        float x = lo[0];
        for (int c = 0; c < view.cols; ++c, x += meters_per_pixel)
            view.navigable.push_back(is_navigable({x, height, z}, max_y_delta) ? 1 : 0);
    }
    return view;
}

}  // namespace batchsim::nav
