// batchsim._core.Simulator: BatchSim and BatchRenderer behind one step (see
// batchsim.Simulator). Arguments are checked here, then the GIL is released around resets
// and steps; step_async returns with the step running on a C++ thread.
#include <optional>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings/backend_arg.hpp"
#include "bindings/bindings.hpp"
#include "bindings/sim_args.hpp"
#include "bindings/streams.hpp"
#include "env/simulator.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
namespace {

using env::Simulator;
using Stream = std::optional<std::int64_t>;

std::unique_ptr<Simulator> make_simulator(
    std::shared_ptr<device::GpuContext> context, std::vector<std::filesystem::path> scene_paths,
    const IntArray& scene, const FloatArray& start_position, const FloatArray& start_rotation,
    const FloatArray& goal, int num_envs, int num_threads, std::uint64_t seed,
    const std::string& mode, int scenes_resident, int steps_per_scene, const std::string& geodesic,
    const std::string& autoreset, double loader_bytes_per_second, const sim::TaskConfig& task,
    std::uint32_t width, std::uint32_t height, float hfov, float near_plane, float far_plane,
    bool depth, bool rgb, const std::string& backend) {
    const sim::SimConfig config =
        sim_config(num_envs, num_threads, seed, mode, scenes_resident, steps_per_scene, geodesic,
                   autoreset, loader_bytes_per_second, task);
    auto episodes =
        episode_set(std::move(scene_paths), scene, start_position, start_rotation, goal);
    const env::RenderOptions render{width,     height, hfov, near_plane,
                                    far_plane, depth,  rgb,  parse_backend(backend)};
    py::gil_scoped_release unlocked;
    return std::make_unique<Simulator>(std::move(context), config, std::move(episodes), render);
}

void take_actions(Simulator& s, const py::object& actions) {
    if (actions.is_none()) return;
    const py::array given = py::array::ensure(actions);
    BATCHSIM_CHECK(given, InvalidArgument,
                   str("actions: expected an integer array of shape [", s.sim().num_envs(),
                       "], got ", std::string(py::str(py::type::of(actions).attr("__name__")))));
    set_actions(s.sim(), given);
}

std::uintptr_t stream_of(Simulator& s, Stream stream) {
    return consumer_stream(*s.renderer()->context(), stream);
}

}  // namespace

void bind_env(py::module_& m) {
    const sim::SimConfig defaults;
    const env::RenderOptions render;
    py::class_<Simulator>(m, "Simulator",
                          "BatchSim and BatchRenderer behind one step (see batchsim.Simulator).")
        .def(py::init(&make_simulator), py::arg("context"), py::arg("scene_paths"),
             py::arg("episode_scene"), py::arg("start_position"), py::arg("start_rotation"),
             py::arg("goal"), py::kw_only(), py::arg("num_envs"), py::arg("num_threads") = 1,
             py::arg("seed") = 0, py::arg("mode") = "train", py::arg("scenes_resident") = 1,
             py::arg("steps_per_scene") = defaults.steps_per_scene,
             py::arg("geodesic") = "corridor", py::arg("autoreset") = "same_step",
             py::arg("loader_bytes_per_second") = defaults.loader_bytes_per_second,
             py::arg("task") = sim::TaskConfig{}, py::arg("width") = render.width,
             py::arg("height") = render.height, py::arg("hfov") = render.hfov_degrees,
             py::arg("near") = render.near_plane, py::arg("far") = render.far_plane,
             py::arg("depth") = render.depth, py::arg("rgb") = render.rgb,
             py::arg("backend") = "auto")
        .def_property_readonly(
            "sim", [](Simulator& s) -> sim::BatchSim& { return s.sim(); },
            py::return_value_policy::reference_internal)
        .def_property_readonly("renderer", &Simulator::renderer)
        .def(
            "reset",
            [](Simulator& s, std::optional<std::uint64_t> seed, Stream stream) {
                const auto consumer = stream_of(s, stream);
                py::gil_scoped_release unlocked;
                s.reset(seed, consumer);
            },
            py::arg("seed") = py::none(), py::arg("stream") = py::none())
        .def(
            "reset_envs",
            [](Simulator& s, const py::array_t<std::uint8_t, py::array::forcecast>& mask,
               Stream stream) {
                BATCHSIM_CHECK(mask.ndim() == 1, InvalidArgument,
                               str("mask: expected bool [N], got ", shape_of(mask)));
                const std::span<const std::uint8_t> flags(mask.data(), std::size_t(mask.shape(0)));
                const auto consumer = stream_of(s, stream);
                py::gil_scoped_release unlocked;
                s.reset_envs(flags, consumer);
            },
            py::arg("mask"), py::arg("stream") = py::none())
        .def(
            "step",
            [](Simulator& s, const py::object& actions, Stream stream) {
                take_actions(s, actions);
                const auto consumer = stream_of(s, stream);
                py::gil_scoped_release unlocked;
                s.step(consumer);
            },
            py::arg("actions") = py::none(), py::arg("stream") = py::none())
        .def(
            "step_async",
            [](Simulator& s, const py::object& actions, Stream stream) {
                BATCHSIM_CHECK(!s.stepping(), InvalidArgument,
                               "step_async() while a step is running: call step_wait() first");
                take_actions(s, actions);
                s.step_async(stream_of(s, stream));
            },
            py::arg("actions") = py::none(), py::arg("stream") = py::none())
        .def("step_wait", &Simulator::step_wait, py::call_guard<py::gil_scoped_release>())
        .def_property_readonly("stepping", &Simulator::stepping)
        .def_property_readonly("last_step_seconds", &Simulator::last_step_seconds);
}

}  // namespace batchsim::bindings
