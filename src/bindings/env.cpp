// batchsim._core.Simulator: BatchSim and BatchRenderer behind one step (see
// batchsim.Simulator). Simulator(context, config, render, episodes); the GIL is released
// around resets and steps; step_async returns with the step running on a C++ thread.
// `stream` is the consumer's CUDA stream (a CUstream handle; 0 = the default stream),
// chosen by the Python layer. step_after / step_async_after read the actions from host
// memory once a wait returns (a CUDA event's, for a policy's actions copied to pinned memory).
#include <functional>
#include <memory>
#include <optional>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/arrays.hpp"
#include "bindings/bindings.hpp"
#include "bindings/sim_views.hpp"
#include "device/cuda_event.hpp"
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

// A Python object held by a step's thread, which has no GIL to drop it with: the reference
// is taken with the GIL and released through Py_AddPendingCall (by the main thread, later).
std::shared_ptr<PyObject> held_by_step(const py::object& object) {
    return {object.inc_ref().ptr(), [](PyObject* held) {
                Py_AddPendingCall(
                    [](void* pointer) {
                        Py_DECREF(static_cast<PyObject*>(pointer));
                        return 0;
                    },
                    held);
            }};
}

// The wait before a step reads pending actions: a CUDA event's (`ready` an int, a CUevent
// handle on CUDA device `device`) or, for tests without a GPU, a Python callable's, called
// with the GIL.
std::function<void()> actions_wait(const py::object& ready, int device) {
    if (py::isinstance<py::int_>(ready)) {
        const auto event = ready.cast<std::uintptr_t>();
        return [device, event] { device::cuda::synchronize_event(device, event); };
    }
    BATCHSIM_CHECK(PyCallable_Check(ready.ptr()) != 0, InvalidArgument,
                   str("ready: expected a CUevent handle (int) or a callable, got ",
                       std::string(py::str(py::type::of(ready).attr("__name__")))));
    return [callable = held_by_step(ready)] {
        const py::gil_scoped_acquire locked;
        py::handle{callable.get()}();
    };
}

env::PendingActions pending_actions(std::uintptr_t values, const py::object& ready, int device) {
    BATCHSIM_CHECK(values != 0, InvalidArgument,
                   "values: expected the address of N int64 actions, got 0");
    return {reinterpret_cast<const std::int64_t*>(values), actions_wait(ready, device)};
}

py::object final_pointgoal(const py::object& self) {
    const auto values = self.cast<Simulator&>().final_pointgoal();
    if (values.empty()) return py::none();
    py::array out(py::dtype::of<float>(), {py::ssize_t(values.size()), py::ssize_t(2)},
                  values.data()->data(), self);
    out.attr("flags").attr("writeable") = false;
    return out;
}

// name -> batchsim.Tensor of Simulator::results(), in its order.
py::dict result_tensors(const Simulator& simulator) {
    py::dict out;
    for (const auto& result : simulator.results().results())
        out[py::str(result.name)] = result.tensor;
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
        .def(
            "step_after",
            [](Simulator& s, std::uintptr_t values, const py::object& ready, int device,
               std::uintptr_t stream) {
                auto actions = pending_actions(values, ready, device);
                py::gil_scoped_release unlocked;
                s.step(stream, actions);
            },
            py::arg("values"), py::arg("ready"), py::arg("device") = 0, py::arg("stream") = 0,
            "step() with the N int64 actions at address `values`, read and checked once `ready` "
            "(a CUevent handle on CUDA device `device`, or a callable) has happened")
        .def(
            "step_async_after",
            [](Simulator& s, std::uintptr_t values, const py::object& ready, int device,
               std::uintptr_t stream) {
                s.step_async(stream, pending_actions(values, ready, device));
            },
            py::arg("values"), py::arg("ready"), py::arg("device") = 0, py::arg("stream") = 0,
            "step_after() on the step's thread: returns before `ready`; the values (and a CUDA "
            "event) must stay alive until step_wait(), which raises a bad value")
        .def("step_wait", &Simulator::step_wait, py::call_guard<py::gil_scoped_release>())
        .def_property_readonly("stepping", &Simulator::stepping)
        .def_property_readonly("results", &result_tensors,
                               "name -> batchsim.Tensor: the per-environment results on the "
                               "views' device, written in stream order with them")
        .def_property_readonly("final_depth", &Simulator::final_depth,
                               "[N, 1, H, W] float32: views before the autoreset (final_views)")
        .def_property_readonly("final_rgb", &Simulator::final_rgb,
                               "[N, H, W, 4] uint8: views before the autoreset (final_views)")
        .def_property_readonly("final_pointgoal", &final_pointgoal,
                               "[N, 2] float32: pointgoal before the autoreset (final_views)")
        .def_property_readonly("last_step_seconds", &Simulator::last_step_seconds)
        .def_property_readonly("last_action_wait_seconds", &Simulator::last_action_wait_seconds)
        .def_property_readonly("last_submit_seconds", &Simulator::last_submit_seconds);
}

}  // namespace batchsim::bindings
