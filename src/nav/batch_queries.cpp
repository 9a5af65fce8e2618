#include "nav/batch_queries.hpp"

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::nav {
namespace {

void require_pairs(std::size_t starts, std::size_t ends, std::size_t out) {
    BATCHSIM_CHECK(starts == ends, InvalidArgument,
                   str("starts and ends must have the same length, got ", starts, " and ", ends));
    BATCHSIM_CHECK(out == starts, Internal, "batched query output of the wrong length");
}

}  // namespace

void geodesic_distances(NavQuery& query, std::span<const Vec3> starts, std::span<const Vec3> ends,
                        std::span<float> out) {
    require_pairs(starts.size(), ends.size(), out.size());
    for (std::size_t i = 0; i < starts.size(); ++i)
        out[i] = query.geodesic_distance(starts[i], ends[i]);
}

void try_steps(NavQuery& query, std::span<const Vec3> starts, std::span<const Vec3> ends,
               bool allow_sliding, std::span<Vec3> out) {
    require_pairs(starts.size(), ends.size(), out.size());
    for (std::size_t i = 0; i < starts.size(); ++i)
        out[i] = query.try_step(starts[i], ends[i], allow_sliding);
}

void random_points(NavQuery& query, Rng& rng, int island, std::span<Vec3> out) {
    for (Vec3& point : out) point = query.random_point(rng, island);
}

}  // namespace batchsim::nav
