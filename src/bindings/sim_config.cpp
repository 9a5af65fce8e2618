// batchsim.TaskConfig: Habitat's PointNav constants, as a mutable value type.
#include <pybind11/pybind11.h>

#include "bindings/bindings.hpp"
#include "core/check.hpp"
#include "core/strings.hpp"
#include "sim/config.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
namespace {

std::string task_repr(const sim::TaskConfig& t) {
    return str("TaskConfig(forward_step=", t.forward_step, ", turn_degrees=", t.turn_degrees,
               ", success_distance=", t.success_distance, ", slack_reward=", t.slack_reward,
               ", success_reward=", t.success_reward, ", max_episode_steps=", t.max_episode_steps,
               ", camera_height=", t.camera_height, ", hfov_degrees=", t.hfov_degrees,
               ", allow_sliding=", t.allow_sliding ? "True" : "False", ")");
}

sim::TaskConfig make_task(float forward_step, float turn_degrees, float success_distance,
                          float slack_reward, float success_reward, int max_episode_steps,
                          float camera_height, float hfov_degrees, bool allow_sliding) {
    sim::TaskConfig t{forward_step,  turn_degrees,   success_distance,
                      slack_reward,  success_reward, max_episode_steps,
                      camera_height, hfov_degrees,   allow_sliding};
    sim::validate(t);
    return t;
}

py::tuple as_tuple(const sim::TaskConfig& t) {
    return py::make_tuple(t.forward_step, t.turn_degrees, t.success_distance, t.slack_reward,
                          t.success_reward, t.max_episode_steps, t.camera_height, t.hfov_degrees,
                          t.allow_sliding);
}

sim::TaskConfig from_tuple(const py::tuple& s) {
    BATCHSIM_CHECK(s.size() == 9, InvalidArgument,
                   str("TaskConfig state must have 9 fields, got ", s.size()));
    return make_task(s[0].cast<float>(), s[1].cast<float>(), s[2].cast<float>(), s[3].cast<float>(),
                     s[4].cast<float>(), s[5].cast<int>(), s[6].cast<float>(), s[7].cast<float>(),
                     s[8].cast<bool>());
}

}  // namespace

void bind_sim_config(py::module_& m) {
    using T = sim::TaskConfig;
    const T d;
    py::class_<T>(m, "TaskConfig",
                  "Habitat PointNav-v1 task constants (habitat-lab's defaults); checked on "
                  "construction and when a simulator is made.")
        .def(py::init(&make_task), py::kw_only(), py::arg("forward_step") = d.forward_step,
             py::arg("turn_degrees") = d.turn_degrees,
             py::arg("success_distance") = d.success_distance,
             py::arg("slack_reward") = d.slack_reward, py::arg("success_reward") = d.success_reward,
             py::arg("max_episode_steps") = d.max_episode_steps,
             py::arg("camera_height") = d.camera_height, py::arg("hfov_degrees") = d.hfov_degrees,
             py::arg("allow_sliding") = d.allow_sliding)
        .def_readwrite("forward_step", &T::forward_step, "metres per MOVE_FORWARD")
        .def_readwrite("turn_degrees", &T::turn_degrees, "degrees per TURN_LEFT / TURN_RIGHT")
        .def_readwrite("success_distance", &T::success_distance,
                       "STOP closer than this geodesic distance (m) succeeds")
        .def_readwrite("slack_reward", &T::slack_reward, "reward added every step")
        .def_readwrite("success_reward", &T::success_reward, "reward added on success")
        .def_readwrite("max_episode_steps", &T::max_episode_steps, "longer episodes are truncated")
        .def_readwrite("camera_height", &T::camera_height, "camera above the agent (m)")
        .def_readwrite("hfov_degrees", &T::hfov_degrees, "horizontal field of view")
        .def_readwrite("allow_sliding", &T::allow_sliding, "slide along walls")
        .def("__repr__", &task_repr)
        .def("__eq__", [](const T& a, const T& b) { return as_tuple(a).equal(as_tuple(b)); })
        .def(py::pickle(&as_tuple, &from_tuple));
}

}  // namespace batchsim::bindings
