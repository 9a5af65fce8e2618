// libFuzzer harness for Habitat .navmesh files: parse and validate, then (for accepted
// inputs) run the queries a simulator makes, so that a tile that passes validation but
// would make Detour read out of bounds shows up under ASan. The only acceptable failure is
// batchsim::Error.
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/check.hpp"
#include "nav/nav_query.hpp"

volatile float g_sink = 0;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace batchsim;
    try {
        auto mesh = nav::NavMesh::from_habitat_bytes({data, size});
        nav::NavQuery query(mesh);
        Rng rng(size);
        const nav::Vec3 a = query.random_point(rng), b = query.random_point(rng, 0);
        float sum = query.geodesic_distance(a, b) + query.distance_to_closest_obstacle(a);
        sum += query.try_step(a, b, true)[0] + query.try_step(a, b, false)[2];
        sum += static_cast<float>(query.island_of(b) + query.is_navigable(a));
        if (const auto snapped = query.snap_point({b[0] + 1, b[1], b[2]}, 0)) sum += (*snapped)[1];
        g_sink = sum;
    } catch (const Error&) {
        // Rejected: the expected outcome for malformed input.
    }
    return 0;
}
