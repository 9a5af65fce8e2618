// batchsim._core.NavMesh and NavMeshSettings: habitat-sim PathFinder's API on our navmesh.
#include <limits>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings/arrays.hpp"
#include "bindings/bindings.hpp"
#include "bindings/py_navmesh.hpp"
#include "nav/floors.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
namespace {

py::array_t<float> nan_point() {
    constexpr float nan = std::numeric_limits<float>::quiet_NaN();
    return to_numpy({nan, nan, nan});
}

Handle bake(const FloatArray& vertices,
            const py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast>& indices,
            const nav::NavMeshSettings& settings) {
    const auto positions = to_points(vertices, "vertices", false);  // bake() checks them
    BATCHSIM_CHECK((indices.ndim() == 2 && indices.shape(1) == 3) || indices.ndim() == 1,
                   InvalidArgument,
                   str("indices: expected shape [T, 3] or [3T], got ", shape_of(indices)));
    std::span<const float> flat(positions.data()->data(), positions.size() * 3);
    std::span<const std::uint32_t> tris(indices.data(), static_cast<std::size_t>(indices.size()));
    py::gil_scoped_release release;
    return wrap(nav::NavMesh::bake(flat, tris, settings));
}

void bind_settings(py::module_& m) {
    using S = nav::NavMeshSettings;
    py::class_<S>(m, "NavMeshSettings", "Recast baking settings; defaults are habitat-sim's.")
        .def(py::init<>())
        .def_readwrite("cell_size", &S::cell_size)
        .def_readwrite("cell_height", &S::cell_height)
        .def_readwrite("agent_height", &S::agent_height)
        .def_readwrite("agent_radius", &S::agent_radius)
        .def_readwrite("agent_max_climb", &S::agent_max_climb)
        .def_readwrite("agent_max_slope", &S::agent_max_slope)
        .def_readwrite("region_min_size", &S::region_min_size)
        .def_readwrite("region_merge_size", &S::region_merge_size)
        .def_readwrite("edge_max_len", &S::edge_max_len)
        .def_readwrite("edge_max_error", &S::edge_max_error)
        .def_readwrite("verts_per_poly", &S::verts_per_poly)
        .def_readwrite("detail_sample_dist", &S::detail_sample_dist)
        .def_readwrite("detail_sample_max_error", &S::detail_sample_max_error)
        .def_readwrite("filter_low_hanging_obstacles", &S::filter_low_hanging_obstacles)
        .def_readwrite("filter_ledge_spans", &S::filter_ledge_spans)
        .def_readwrite("filter_walkable_low_height_spans", &S::filter_walkable_low_height_spans)
        .def("validate", [](const S& s) { nav::validate(s); });
}

void bind_loading(py::class_<PyNavMesh, Handle>& c) {
    c.def_static(
         "load",
         [](const std::filesystem::path& path) {
             py::gil_scoped_release release;
             return wrap(nav::NavMesh::load(path));
         },
         py::arg("path"), "Loads a Habitat .navmesh file.")
        .def_static(
            "from_bytes",
            [](const py::bytes& data) {
                const std::string_view view = data;
                return wrap(nav::NavMesh::from_habitat_bytes(
                    {reinterpret_cast<const std::uint8_t*>(view.data()), view.size()}));
            },
            py::arg("data"))
        .def_static(
            "bake", &bake, py::arg("vertices"), py::arg("indices"),
            py::arg("settings") = nav::NavMeshSettings{},
            "Bakes a navmesh of triangles (vertices [V,3] float, indices [T,3]) with Recast.")
        .def(
            "save",
            [](PyNavMesh& n, const std::filesystem::path& path) {
                py::gil_scoped_release release;
                n.mesh->save(path);
            },
            py::arg("path"), "Writes the Habitat .navmesh file atomically.")
        .def("to_bytes", [](PyNavMesh& n) {
            const auto& bytes = n.mesh->habitat_bytes();
            return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        });
}

void bind_properties(py::class_<PyNavMesh, Handle>& c) {
    c.def_property_readonly("settings", [](PyNavMesh& n) { return n.mesh->settings(); })
        .def_property_readonly("navigable_area",
                               [](PyNavMesh& n) { return n.mesh->navigable_area(); })
        .def_property_readonly("num_islands", [](PyNavMesh& n) { return n.mesh->island_count(); })
        .def(
            "floor_heights", [](PyNavMesh& n) { return nav::floor_heights(*n.mesh); },
            "heights of the floors (storeys), lowest first: levels holding >= 5% of the "
            "walkable area, at least 1.5 m apart")
        .def_property_readonly("polygon_count",
                               [](PyNavMesh& n) { return n.mesh->polygon_count(); })
        .def("get_bounds",
             [](PyNavMesh& n) {
                 const auto bounds = n.mesh->bounds();
                 return py::make_tuple(to_numpy(bounds[0]), to_numpy(bounds[1]));
             })
        .def(
            "island_area", [](PyNavMesh& n, int island) { return n.mesh->island(island).area; },
            py::arg("island_index"))
        .def(
            "island_radius", [](PyNavMesh& n, int island) { return n.mesh->island(island).radius; },
            py::arg("island_index"))
        .def(
            "island_radius",
            [](PyNavMesh& n, const FloatArray& p) {
                const int island =
                    n.locked([&](nav::NavQuery& q) { return q.island_of(to_point(p, "point")); });
                return island < 0 ? 0.0f : n.mesh->island(island).radius;
            },
            py::arg("point"))
        .def(
            "get_island",
            [](PyNavMesh& n, const FloatArray& p) {
                const auto point = to_point(p, "point");
                return n.locked([&](nav::NavQuery& q) { return q.island_of(point); });
            },
            py::arg("point"), "The island of the point's snap, or -1 off the navmesh.");
}

void bind_queries(py::class_<PyNavMesh, Handle>& c) {
    c.def(
         "seed", [](PyNavMesh& n, std::uint64_t seed) { n.rng = Rng(seed); }, py::arg("seed"))
        .def(
            "is_navigable",
            [](PyNavMesh& n, const FloatArray& p, float max_y_delta) {
                const auto point = to_point(p, "point");
                checked_number(max_y_delta, "max_y_delta", 0, true);
                return n.locked(
                    [&](nav::NavQuery& q) { return q.is_navigable(point, max_y_delta); });
            },
            py::arg("point"), py::arg("max_y_delta") = 0.5f)
        .def(
            "snap_point",
            [](PyNavMesh& n, const FloatArray& p, int island) {
                const auto point = to_point(p, "point");
                const auto snapped =
                    n.locked([&](nav::NavQuery& q) { return q.snap_point(point, island); });
                return snapped ? to_numpy(*snapped) : nan_point();
            },
            py::arg("point"), py::arg("island_index") = -1,
            "The nearest navmesh point, or NaNs if none is within 2 m (as habitat-sim).")
        .def(
            "get_random_navigable_point",
            [](PyNavMesh& n, int island) {
                return to_numpy(
                    n.locked([&](nav::NavQuery& q) { return q.random_point(n.rng, island); }));
            },
            py::arg("island_index") = -1)
        .def(
            "geodesic_distance",
            [](PyNavMesh& n, const FloatArray& a, const FloatArray& b) {
                const auto start = to_point(a, "start"), end = to_point(b, "end");
                return n.locked([&](nav::NavQuery& q) { return q.geodesic_distance(start, end); });
            },
            py::arg("start"), py::arg("end"), "Shortest-path length; inf when unreachable.")
        .def(
            "find_path",
            [](PyNavMesh& n, const FloatArray& a, const FloatArray& b) {
                const auto start = to_point(a, "start"), end = to_point(b, "end");
                const auto path =
                    n.locked([&](nav::NavQuery& q) { return q.find_path(start, end); });
                py::array_t<float> out({static_cast<py::ssize_t>(path.size()), py::ssize_t{3}});
                std::memcpy(out.mutable_data(), path.data(), path.size() * sizeof(nav::Vec3));
                return out;
            },
            py::arg("start"), py::arg("end"), "Corner points [K, 3]; empty when unreachable.");
}

void bind_motion(py::class_<PyNavMesh, Handle>& c) {
    auto step = [](PyNavMesh& n, const FloatArray& a, const FloatArray& b, bool sliding) {
        const auto start = to_point(a, "start"), end = to_point(b, "end");
        return to_numpy(
            n.locked([&](nav::NavQuery& q) { return q.try_step(start, end, sliding); }));
    };
    c.def(
         "try_step",
         [step](PyNavMesh& n, const FloatArray& a, const FloatArray& b) {
             return step(n, a, b, true);
         },
         py::arg("start"), py::arg("end"), "Moves towards end, sliding along walls.")
        .def(
            "try_step_no_sliding",
            [step](PyNavMesh& n, const FloatArray& a, const FloatArray& b) {
                return step(n, a, b, false);
            },
            py::arg("start"), py::arg("end"), "Moves towards end, stopping at the first wall.")
        .def(
            "distance_to_closest_obstacle",
            [](PyNavMesh& n, const FloatArray& p, float radius) {
                const auto point = to_point(p, "point");
                checked_number(radius, "max_search_radius", 0, false);
                return n.locked([&](nav::NavQuery& q) {
                    return q.distance_to_closest_obstacle(point, radius);
                });
            },
            py::arg("point"), py::arg("max_search_radius") = 2.0f)
        .def(
            "get_topdown_view",
            [](PyNavMesh& n, float mpp, float height, float eps) {
                BATCHSIM_CHECK(std::isfinite(height), InvalidArgument,
                               str("height: expected a finite number, got ", height));
                checked_number(eps, "eps", 0, true);
                const nav::TopDownView view =
                    n.locked([&](nav::NavQuery& q) { return q.topdown_view(mpp, height, eps); });
                py::array_t<bool> out({view.rows, view.cols});
                std::copy(view.navigable.begin(), view.navigable.end(), out.mutable_data());
                return out;
            },
            py::arg("meters_per_pixel"), py::arg("height"), py::arg("eps") = 0.5f,
            "Navigable cells [rows (z), cols (x)] from the bounds' minimum corner.");
}

}  // namespace

void bind_nav(py::module_& m) {
    bind_settings(m);
    py::class_<PyNavMesh, Handle> navmesh(m, "NavMesh", R"doc(
A navigation mesh with habitat-sim PathFinder semantics (Detour). Load a Habitat .navmesh,
bake one from triangles, or take a Scene's.)doc");
    bind_loading(navmesh);
    bind_properties(navmesh);
    bind_queries(navmesh);
    bind_motion(navmesh);
    bind_nav_batch(navmesh);
}

}  // namespace batchsim::bindings
