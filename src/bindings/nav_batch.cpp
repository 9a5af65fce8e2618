// Batched NavMesh queries: one call for N points, run without the GIL. These are what the
// benchmarks time and what dataset generators use.
#include "bindings/arrays.hpp"
#include "bindings/py_navmesh.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
namespace {

void require_same_length(std::size_t starts, std::size_t ends) {
    BATCHSIM_CHECK(starts == ends, InvalidArgument,
                   str("starts and ends must have the same length, got ", starts, " and ", ends));
}

py::array_t<float> geodesic_distances(PyNavMesh& n, const FloatArray& a, const FloatArray& b) {
    const auto starts = to_points(a, "starts"), ends = to_points(b, "ends");
    require_same_length(starts.size(), ends.size());
    py::array_t<float> out(static_cast<py::ssize_t>(starts.size()));
    float* distances = out.mutable_data();
    n.locked([&](nav::NavQuery& q) {
        for (std::size_t i = 0; i < starts.size(); ++i)
            distances[i] = q.geodesic_distance(starts[i], ends[i]);
    });
    return out;
}

py::array_t<float> try_steps(PyNavMesh& n, const FloatArray& a, const FloatArray& b,
                             bool allow_sliding) {
    const auto starts = to_points(a, "starts"), ends = to_points(b, "ends");
    require_same_length(starts.size(), ends.size());
    py::array_t<float> out({static_cast<py::ssize_t>(starts.size()), py::ssize_t{3}});
    auto* reached = reinterpret_cast<nav::Vec3*>(out.mutable_data());
    n.locked([&](nav::NavQuery& q) {
        for (std::size_t i = 0; i < starts.size(); ++i)
            reached[i] = q.try_step(starts[i], ends[i], allow_sliding);
    });
    return out;
}

py::array_t<float> random_points(PyNavMesh& n, py::ssize_t count, int island) {
    BATCHSIM_CHECK(count >= 0, InvalidArgument, str("count must be >= 0, got ", count));
    py::array_t<float> out({count, py::ssize_t{3}});
    auto* points = reinterpret_cast<nav::Vec3*>(out.mutable_data());
    n.locked([&](nav::NavQuery& q) {
        for (py::ssize_t i = 0; i < count; ++i) points[i] = q.random_point(n.rng, island);
    });
    return out;
}

}  // namespace

void bind_nav_batch(py::class_<PyNavMesh, Handle>& navmesh) {
    navmesh
        .def("geodesic_distances", &geodesic_distances, py::arg("starts"), py::arg("ends"),
             "geodesic_distance for each row of starts/ends [N, 3]; float32 [N].")
        .def("try_steps", &try_steps, py::arg("starts"), py::arg("ends"),
             py::arg("allow_sliding") = true, "try_step for each row; float32 [N, 3].")
        .def("get_random_navigable_points", &random_points, py::arg("count"),
             py::arg("island_index") = -1, "count random points from the seeded stream [N, 3].");
}

}  // namespace batchsim::bindings
