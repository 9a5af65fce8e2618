// Batched NavMesh queries (nav/batch_queries.hpp): one call for N points, run without the
// GIL. These are what the benchmarks time and what dataset generators use.
#include "bindings/arrays.hpp"
#include "bindings/py_navmesh.hpp"
#include "nav/batch_queries.hpp"
#include "sim/episode_starts.hpp"

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

// (row, reason) for each start that breaks the simulator's rules (sim/episode_starts.hpp).
// Python passes both arrays by keyword (py::kw_only below), so they cannot be swapped.
// NOLINTBEGIN(bugprone-easily-swappable-parameters)
py::list start_problems(PyNavMesh& n, const FloatArray& positions, const FloatArray& rotations) {
    // NOLINTEND(bugprone-easily-swappable-parameters)
    const auto starts = to_points(positions, "start_positions");
    BATCHSIM_CHECK(rotations.ndim() == 2 && rotations.shape(1) == 4 &&
                       static_cast<std::size_t>(rotations.shape(0)) == starts.size(),
                   InvalidArgument,
                   str("start_rotations: expected an array of shape [", starts.size(), ", 4], got ",
                       shape_of(rotations)));
    std::vector<std::pair<std::size_t, std::string>> found;
    n.locked([&](nav::NavQuery& q) {  // without the GIL
        for (std::size_t i = 0; i < starts.size(); ++i) {
            const float* r = rotations.data() + 4 * i;
            const sim::Quat rotation = sim::normalized({r[0], r[1], r[2], r[3]});
            std::string problem = sim::start_problem(q, starts[i], rotation);
            if (!problem.empty()) found.emplace_back(i, std::move(problem));
        }
    });
    py::list out;
    for (auto& [row, problem] : found) out.append(py::make_tuple(row, problem));
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
        .def("start_problems", &start_problems, py::kw_only(), py::arg("start_positions"),
             py::arg("start_rotations"),
             "(row, reason) for each episode start ([N, 3] positions, [N, 4] quaternions x, y, "
             "z, w) the simulator refuses: a tilted rotation, or a position off the navmesh, "
             "inside a wall or in the air (the same rules as the simulator's).")
        .def("get_random_navigable_points", &random_points, py::arg("count"),
             py::arg("island_index") = -1, "count random points from the seeded stream [N, 3].");
}

}  // namespace batchsim::bindings
