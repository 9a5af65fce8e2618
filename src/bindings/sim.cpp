// batchsim._core.BatchSim and EpisodeSet. BatchSim(config, episodes); the GIL is released
// around reset and step. Its arrays are numpy views of the core's persistent buffers (made
// once; they keep the simulator alive).
#include <optional>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings/arrays.hpp"
#include "bindings/bindings.hpp"
#include "bindings/sim_views.hpp"
#include "nav/habitat_format.hpp"
#include "sim/batch_sim.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
namespace {

using Sim = sim::BatchSim;

// Python passes the columns by keyword (py::kw_only below), so none can be swapped.
// NOLINTBEGIN(bugprone-easily-swappable-parameters)
sim::EpisodeSet make_episode_set(std::vector<std::filesystem::path> scene_paths,
                                 const IntArray& scene, const FloatArray& start_position,
                                 const FloatArray& start_rotation, const FloatArray& goal,
                                 const std::optional<FloatArray>& geodesic) {
    // NOLINTEND(bugprone-easily-swappable-parameters)
    BATCHSIM_CHECK(scene.ndim() == 1, InvalidArgument,
                   str("episode_scene: expected int32 [M], got ", shape_of(scene)));
    const auto m = static_cast<std::size_t>(scene.shape(0));
    sim::EpisodeSet e;
    e.scene.assign(scene.data(), scene.data() + m);
    e.start_position = rows<3>(start_position, m, "start_position");
    e.start_rotation = rows<4>(start_rotation, m, "start_rotation");
    e.goal = rows<3>(goal, m, "goal");
    if (geodesic) {
        BATCHSIM_CHECK(geodesic->ndim() == 1 && std::size_t(geodesic->shape(0)) == m,
                       InvalidArgument,
                       str("geodesic: expected float32 [", m, "], got ", shape_of(*geodesic)));
        e.geodesic.assign(geodesic->data(), geodesic->data() + m);
    }
    e.scene_paths = std::move(scene_paths);
    return e;
}

std::unique_ptr<Sim> make_sim(const sim::SimConfig& config, sim::EpisodeSet episodes) {
    py::gil_scoped_release unlocked;
    return std::make_unique<Sim>(config, std::move(episodes));
}

void bind_episode_set(py::module_& m) {
    py::class_<sim::EpisodeSet>(m, "EpisodeSet",
                                "Episodes as columns: scene index, start pose and goal of each, "
                                "and optionally its geodesic metres (NaN where unknown).")
        .def(py::init(&make_episode_set), py::kw_only(), py::arg("scene_paths"),
             py::arg("episode_scene"), py::arg("start_position"), py::arg("start_rotation"),
             py::arg("goal"), py::arg("geodesic") = py::none())
        .def("__len__", [](const sim::EpisodeSet& e) { return e.scene.size(); })
        .def_property_readonly("scene_paths",
                               [](const sim::EpisodeSet& e) { return e.scene_paths; });
}

}  // namespace

void bind_sim(py::module_& m) {
    // Action ids are positions in this tuple.
    m.attr("ACTIONS") = py::make_tuple("STOP", "MOVE_FORWARD", "TURN_LEFT", "TURN_RIGHT");
    static_assert(sim::kActionCount == 4, "ACTIONS names every action");
    // EpisodeSet's bound on |start or goal coordinate|, metres: Python's parser checks it too.
    m.attr("MAX_NAV_COORDINATE") = nav::kMaxNavCoordinate;
    bind_episode_set(m);
    py::class_<Sim>(m, "BatchSim",
                    "N PointNav environments stepped together (see batchsim.BatchSim).")
        .def(py::init(&make_sim), py::arg("config"), py::arg("episodes"))
        .def_property_readonly("num_envs", &Sim::num_envs)
        .def_property_readonly("slot_count", &Sim::slot_count)
        .def_property_readonly("config", &Sim::config)
        .def_property_readonly("finished", &Sim::finished)
        .def_property_readonly("max_episode_geodesic", &Sim::max_episode_geodesic)
        .def("set_max_episode_geodesic", &Sim::set_max_episode_geodesic, py::arg("metres"))
        .def("reset", &Sim::reset, py::arg("seed") = py::none(),
             py::call_guard<py::gil_scoped_release>())
        .def(
            "reset_envs",
            [](Sim& s, const MaskArray& mask) {
                const auto flags = to_mask(mask, s.num_envs());
                py::gil_scoped_release unlocked;
                s.reset_envs(flags);
            },
            py::arg("mask"))
        .def("step", &Sim::step, py::call_guard<py::gil_scoped_release>(),
             "Steps the action buffer (arrays()['actions'], which batchsim.BatchSim fills and "
             "checks); the core checks its values too, as every step does")
        .def("arrays", [](const py::object& self) { return sim_arrays(self.cast<Sim&>(), self); })
        .def("stats", &sim_stats);
    m.def("output_table", &output_table,
          "The per-environment outputs, declared once in C++ (src/sim/outputs.hpp): a dict per "
          "output (name, dtype, columns, staged, env, env_key, range, doc), in the order of "
          "BatchSim.arrays()");
}

}  // namespace batchsim::bindings
