#include "bindings/sim_views.hpp"

#include <vector>

#include <pybind11/numpy.h>

#include "bindings/arrays.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
namespace {

using Shape = std::vector<py::ssize_t>;

// A read-only numpy view of `data` that keeps `owner` alive.
template <typename T>
py::array view(py::handle owner, const T* data, const Shape& shape) {
    py::array out(py::dtype::of<T>(), shape, data, owner);
    out.attr("flags").attr("writeable") = false;
    return out;
}

py::array bool_view(py::handle owner, const std::uint8_t* data, py::ssize_t n) {
    return view(owner, data, {n}).attr("view")("bool");
}

// Fields of the renderer's CameraPose records, as a strided view.
py::array camera_columns(py::handle owner, const float* first, const Shape& shape) {
    const Shape strides{sizeof(gpu::CameraPose), sizeof(float)};
    py::array out(py::dtype::of<float>(), shape, strides, first, owner);
    out.attr("flags").attr("writeable") = false;
    return out;
}

}  // namespace

py::dict sim_arrays(sim::BatchSim& sim, py::handle owner) {
    const sim::EnvState& st = sim.state();
    const sim::StepOutputs& o = sim.outputs();
    const auto n = py::ssize_t(sim.num_envs());
    py::dict d;
    // The one writable array: callers write actions in place.
    d["actions"] = py::array(py::dtype::of<std::int32_t>(), Shape{n}, sim.actions().data(), owner);
    d["position"] = view(owner, st.position.data()->data(), {n, 3});
    d["rotation"] = view(owner, st.rotation.data()->data(), {n, 4});
    d["goal"] = view(owner, st.goal.data()->data(), {n, 3});
    d["episode_index"] = view(owner, st.episode.data(), {n});
    d["scene_index"] = view(owner, st.scene.data(), {n});
    d["resident_scene"] = view(owner, st.resident.data(), {n});
    d["active"] = bool_view(owner, st.active.data(), n);
    d["pointgoal"] = view(owner, o.pointgoal.data()->data(), {n, 2});
    d["reward"] = view(owner, o.reward.data(), {n});
    d["terminated"] = bool_view(owner, o.terminated.data(), n);
    d["truncated"] = bool_view(owner, o.truncated.data(), n);
    d["success"] = view(owner, o.success.data(), {n});
    d["spl"] = view(owner, o.spl.data(), {n});
    d["softspl"] = view(owner, o.softspl.data(), {n});
    d["distance_to_goal"] = view(owner, o.distance_to_goal.data(), {n});
    d["collisions"] = view(owner, o.collisions.data(), {n});
    d["episode_step"] = view(owner, o.episode_step.data(), {n});
    d["camera_position"] = camera_columns(owner, &o.camera.data()->x, {n, 3});
    d["camera_rotation"] = camera_columns(owner, &o.camera.data()->qx, {n, 4});
    return d;
}

py::dict sim_stats(const sim::BatchSim& sim) {
    const sim::SimStats st = sim.stats();
    py::dict d;
    d["steps"] = st.steps, d["episodes_started"] = st.episodes_started;
    d["unreachable"] = st.unreachable;
    d["scene_swaps"] = st.slots.scene_swaps, d["env_switches"] = st.slots.env_switches;
    d["scenes_freed"] = st.slots.scenes_freed;
    d["resident_scenes"] = st.slots.resident_scenes;
    d["resident_bytes"] = st.slots.resident_bytes;
    d["peak_resident_bytes"] = st.slots.peak_resident_bytes;
    d["loads"] = st.loader.loads, d["bytes_read"] = st.loader.bytes_read;
    d["loader_stalls"] = st.loader.stalls, d["loader_stall_seconds"] = st.loader.stall_seconds;
    return d;
}

}  // namespace batchsim::bindings
