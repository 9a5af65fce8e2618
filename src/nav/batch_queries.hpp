// NavQuery over many points in one call: what the Python NavMesh's batched methods and the
// dataset generators run (one query object, so one thread at a time).
#pragma once

#include <span>

#include "core/random.hpp"
#include "nav/nav_query.hpp"

namespace batchsim::nav {

// out[i] = query.geodesic_distance(starts[i], ends[i]); all three the same length.
void geodesic_distances(NavQuery& query, std::span<const Vec3> starts, std::span<const Vec3> ends,
                        std::span<float> out);
// out[i] = query.try_step(starts[i], ends[i], allow_sliding).
void try_steps(NavQuery& query, std::span<const Vec3> starts, std::span<const Vec3> ends,
               bool allow_sliding, std::span<Vec3> out);
// out[i] = query.random_point(rng, island), in order from the one stream.
void random_points(NavQuery& query, Rng& rng, int island, std::span<Vec3> out);

}  // namespace batchsim::nav
