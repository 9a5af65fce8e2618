// batchsim._core.Simulator: BatchSim and BatchRenderer behind one step (see
// batchsim.Simulator). Simulator(context, config, render, episodes); the GIL is released
// around resets and steps. One entry per operation: step() steps the action buffer (which
// batchsim.Simulator fills and checks) or, with `pending`, the actions a wait hands over
// (a policy's CUDA actions copied to pinned memory); background=True returns with the step
// running on a C++ thread, step_wait() joins it. `stream` is the consumer's CUDA stream (a
// CUstream handle; 0 = the default stream), chosen by the Python layer, which also refuses
// every call while a step runs: the core asserts that instead of checking it again.
#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <variant>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/arrays.hpp"
#include "bindings/bindings.hpp"
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

// The wait before a step reads pending actions: a CUDA event's (a CUevent handle on CUDA
// device `device`) or, for tests without a GPU, a Python callable's, called with the GIL.
using Ready = std::variant<std::uintptr_t, py::function>;

std::function<void()> actions_wait(const Ready& ready, int device) {
    if (const auto* event = std::get_if<std::uintptr_t>(&ready))
        return [device, event = *event] { device::cuda::synchronize_event(device, event); };
    return [callable = held_by_step(std::get<py::function>(ready))] {
        const py::gil_scoped_acquire locked;
        py::handle{callable.get()}();
    };
}

// (values, ready, device): N int64 actions at address `values` once `ready` has happened.
using Pending = std::tuple<std::uintptr_t, Ready, int>;

void step(Simulator& s, std::uintptr_t stream, const std::optional<Pending>& pending,
          bool background) {
    std::optional<env::PendingActions> actions;
    if (pending) {
        const auto& [values, ready, device] = *pending;
        actions = env::PendingActions{reinterpret_cast<const std::int64_t*>(values),
                                      actions_wait(ready, device)};
    }
    if (background) {  // returns at once: no GIL to release
        actions ? s.step_async(stream, std::move(*actions)) : s.step_async(stream);
        return;
    }
    const py::gil_scoped_release unlocked;
    actions ? s.step(stream, *actions) : s.step(stream);
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
        .def("step", &step, py::arg("stream") = 0, py::kw_only(), py::arg("pending") = py::none(),
             py::arg("background") = false,
             "Steps the action buffer or, with pending=(values, ready, device), the N int64 "
             "actions at address `values`, read and checked once `ready` (a CUevent handle on "
             "CUDA device `device`, or a callable) has happened; they must stay alive until the "
             "step ends. background: return with the step running; step_wait() joins it and "
             "raises its error")
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
