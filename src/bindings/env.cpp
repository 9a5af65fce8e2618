// batchsim._core.Simulator: BatchSim and BatchRenderer behind one step (see
// batchsim.Simulator). Simulator(context, config, render, episodes); the GIL is released
// around resets and steps; step_async returns with the step running on a C++ thread.
// `stream` is the consumer's CUDA stream (a CUstream handle; 0 = the default stream),
// chosen by the Python layer.
#include <optional>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/arrays.hpp"
#include "bindings/bindings.hpp"
#include "bindings/sim_views.hpp"
#include "env/simulator.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
namespace {

using env::Simulator;

std::unique_ptr<Simulator> make_simulator(std::shared_ptr<device::GpuContext> context,
                                          const sim::SimConfig& config,
                                          const env::RenderOptions& render,
                                          sim::EpisodeSet episodes) {
    py::gil_scoped_release unlocked;
    return std::make_unique<Simulator>(std::move(context), config, std::move(episodes), render);
}

py::object final_pointgoal(const py::object& self) {
    const auto values = self.cast<Simulator&>().final_pointgoal();
    if (values.empty()) return py::none();
    py::array out(py::dtype::of<float>(), {py::ssize_t(values.size()), py::ssize_t(2)},
                  values.data()->data(), self);
    out.attr("flags").attr("writeable") = false;
    return out;
}

}  // namespace

void bind_env(py::module_& m) {
    py::class_<Simulator>(m, "Simulator",
                          "BatchSim and BatchRenderer behind one step (see batchsim.Simulator).")
        .def(py::init(&make_simulator), py::arg("context"), py::arg("config"), py::arg("render"),
             py::arg("episodes"))
        .def_property_readonly(
            "sim", [](Simulator& s) -> sim::BatchSim& { return s.sim(); },
            py::return_value_policy::reference_internal)
        .def_property_readonly("renderer", &Simulator::renderer)
        .def(
            "reset",
            [](Simulator& s, std::optional<std::uint64_t> seed, std::uintptr_t stream) {
                py::gil_scoped_release unlocked;
                s.reset(seed, stream);
            },
            py::arg("seed") = py::none(), py::arg("stream") = 0)
        .def(
            "reset_envs",
            [](Simulator& s, const MaskArray& mask, std::uintptr_t stream) {
                const auto flags = to_mask(mask, s.sim().num_envs());
                py::gil_scoped_release unlocked;
                s.reset_envs(flags, stream);
            },
            py::arg("mask"), py::arg("stream") = 0)
        .def(
            "step",
            [](Simulator& s, const py::object& actions, std::uintptr_t stream) {
                // A running step reads the actions: step() refuses, and they stay as they are.
                if (!s.stepping()) set_actions(s.sim(), actions);
                py::gil_scoped_release unlocked;
                s.step(stream);
            },
            py::arg("actions") = py::none(), py::arg("stream") = 0)
        .def(
            "step_async",
            [](Simulator& s, const py::object& actions, std::uintptr_t stream) {
                BATCHSIM_CHECK(!s.stepping(), InvalidArgument,
                               "step_async() while a step is running: call step_wait() first");
                set_actions(s.sim(), actions);
                s.step_async(stream);
            },
            py::arg("actions") = py::none(), py::arg("stream") = 0)
        .def("step_wait", &Simulator::step_wait, py::call_guard<py::gil_scoped_release>())
        .def_property_readonly("stepping", &Simulator::stepping)
        .def_property_readonly("final_depth", &Simulator::final_depth,
                               "[N, 1, H, W] float32: views before the autoreset (final_views)")
        .def_property_readonly("final_rgb", &Simulator::final_rgb,
                               "[N, H, W, 4] uint8: views before the autoreset (final_views)")
        .def_property_readonly("final_pointgoal", &final_pointgoal,
                               "[N, 2] float32: pointgoal before the autoreset (final_views)")
        .def_property_readonly("last_step_seconds", &Simulator::last_step_seconds);
}

}  // namespace batchsim::bindings
