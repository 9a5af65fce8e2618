// Batched NavMesh queries (nav/batch_queries.hpp): one call for N points, run without the
// GIL. These are what the benchmarks time and what dataset generators use.
#include "bindings/arrays.hpp"
#include "bindings/py_navmesh.hpp"
#include "nav/batch_queries.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
namespace {

// A new [n, 3] float32 array, and its rows as points.
py::array_t<float> new_points(std::size_t n) {
    return py::array_t<float>({static_cast<py::ssize_t>(n), py::ssize_t{3}});
}

std::span<nav::Vec3> rows_of(py::array_t<float>& points) {
    return {reinterpret_cast<nav::Vec3*>(points.mutable_data()),
            static_cast<std::size_t>(points.shape(0))};
}

py::array_t<float> geodesic_distances(PyNavMesh& n, const FloatArray& a, const FloatArray& b) {
    const auto starts = to_points(a, "starts"), ends = to_points(b, "ends");
    py::array_t<float> out(static_cast<py::ssize_t>(starts.size()));
    const std::span<float> distances(out.mutable_data(), starts.size());
    n.locked([&](nav::NavQuery& q) { nav::geodesic_distances(q, starts, ends, distances); });
    return out;
}

py::array_t<float> try_steps(PyNavMesh& n, const FloatArray& a, const FloatArray& b,
                             bool allow_sliding) {
    const auto starts = to_points(a, "starts"), ends = to_points(b, "ends");
    auto out = new_points(starts.size());
    const auto reached = rows_of(out);
    n.locked([&](nav::NavQuery& q) { nav::try_steps(q, starts, ends, allow_sliding, reached); });
    return out;
}

py::array_t<float> random_points(PyNavMesh& n, py::ssize_t count, int island) {
    BATCHSIM_CHECK(count >= 0, InvalidArgument, str("count must be >= 0, got ", count));
    auto out = new_points(static_cast<std::size_t>(count));
    const auto points = rows_of(out);
    n.locked([&](nav::NavQuery& q) { nav::random_points(q, n.rng, island, points); });
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
