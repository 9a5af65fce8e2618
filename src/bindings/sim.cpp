// batchsim._core.BatchSim: the batch simulator. Arguments are checked here, then the GIL is
// released around the core's reset and step. Its arrays are numpy views of the core's
// persistent buffers (made once; they keep the simulator alive).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings/arrays.hpp"
#include "bindings/bindings.hpp"
#include "bindings/sim_args.hpp"
#include "sim/batch_sim.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
using Sim = sim::BatchSim;

namespace {

template <typename E>
E parse_choice(const std::string& given, const char* name,
               std::initializer_list<std::pair<const char*, E>> choices) {
    std::vector<std::string> names;
    for (const auto& [text, value] : choices) {
        if (given == text) return value;
        names.push_back(str("'", text, "'"));
    }
    throw Error(Error::Kind::InvalidArgument,
                str(name, " must be one of ", join(names), ", got '", given, "'"));
}

// Rows of an [M, width] float32 array as fixed-size arrays.
template <std::size_t Width>
std::vector<std::array<float, Width>> rows(const FloatArray& a, std::size_t m, const char* name) {
    BATCHSIM_CHECK(a.ndim() == 2 && std::size_t(a.shape(0)) == m && a.shape(1) == Width,
                   InvalidArgument,
                   str(name, ": expected float32 [", m, ", ", Width, "], got ", shape_of(a)));
    const auto* first = reinterpret_cast<const std::array<float, Width>*>(a.data());
    return {first, first + m};
}

}  // namespace

sim::EpisodeSet episode_set(std::vector<std::filesystem::path> scene_paths, const IntArray& scene,
                            const FloatArray& start_position, const FloatArray& start_rotation,
                            const FloatArray& goal) {
    BATCHSIM_CHECK(scene.ndim() == 1, InvalidArgument,
                   str("episode_scene: expected int32 [M], got ", shape_of(scene)));
    const auto m = static_cast<std::size_t>(scene.shape(0));
    sim::EpisodeSet e;
    e.scene.assign(scene.data(), scene.data() + m);
    e.start_position = rows<3>(start_position, m, "start_position");
    e.start_rotation = rows<4>(start_rotation, m, "start_rotation");
    e.goal = rows<3>(goal, m, "goal");
    e.scene_paths = std::move(scene_paths);
    return e;
}

sim::SimConfig sim_config(int num_envs, int num_threads, std::uint64_t seed,
                          const std::string& mode, int scenes_resident, int steps_per_scene,
                          const std::string& geodesic, const std::string& autoreset,
                          double loader_bytes_per_second, const sim::TaskConfig& task) {
    sim::SimConfig c;
    c.num_envs = num_envs, c.num_threads = num_threads, c.seed = seed;
    c.order = parse_choice<sim::EpisodeOrder>(
        mode, "mode", {{"train", sim::EpisodeOrder::Train}, {"eval", sim::EpisodeOrder::Eval}});
    c.scenes_resident = scenes_resident, c.steps_per_scene = steps_per_scene;
    c.geodesic = parse_choice<sim::GeodesicMode>(
        geodesic, "geodesic",
        {{"corridor", sim::GeodesicMode::Corridor}, {"exact", sim::GeodesicMode::Exact}});
    c.autoreset = parse_choice<sim::AutoReset>(autoreset, "autoreset",
                                               {{"same_step", sim::AutoReset::SameStep},
                                                {"next_step", sim::AutoReset::NextStep},
                                                {"disabled", sim::AutoReset::Disabled}});
    c.loader_bytes_per_second = loader_bytes_per_second;
    c.task = task;
    return c;
}

namespace {

std::unique_ptr<Sim> make_sim(std::vector<std::filesystem::path> scene_paths, const IntArray& scene,
                              const FloatArray& start_position, const FloatArray& start_rotation,
                              const FloatArray& goal, int num_envs, int num_threads,
                              std::uint64_t seed, const std::string& mode, int scenes_resident,
                              int steps_per_scene, const std::string& geodesic,
                              const std::string& autoreset, double loader_bytes_per_second,
                              const sim::TaskConfig& task) {
    const sim::SimConfig c =
        sim_config(num_envs, num_threads, seed, mode, scenes_resident, steps_per_scene, geodesic,
                   autoreset, loader_bytes_per_second, task);
    auto episodes =
        episode_set(std::move(scene_paths), scene, start_position, start_rotation, goal);
    py::gil_scoped_release unlocked;
    return std::make_unique<Sim>(c, std::move(episodes));
}

}  // namespace

// Copies an integer array of shape [N] into the action buffer, checking every value.
void set_actions(Sim& s, const py::array& given) {
    const std::size_t n = s.num_envs();
    const char kind = given.dtype().kind();
    BATCHSIM_CHECK(
        given.ndim() == 1 && std::size_t(given.shape(0)) == n && (kind == 'i' || kind == 'u'),
        InvalidArgument,
        str("actions: expected an integer array of shape [", n, "], got ",
            std::string(py::str(given.dtype())), " ", shape_of(given)));
    const auto values = py::array_t<std::int64_t, py::array::forcecast>::ensure(given);
    const std::int64_t* data = values.data();
    std::span<std::int32_t> actions = s.actions();
    for (std::size_t i = 0; i < n; ++i) {
        BATCHSIM_CHECK(data[i] >= 0 && data[i] < sim::kActionCount, InvalidArgument,
                       str("actions[", i, "] is ", data[i],
                           "; expected 0 (STOP), 1 (MOVE_FORWARD), 2 (TURN_LEFT) or 3 "
                           "(TURN_RIGHT)"));
        actions[i] = static_cast<std::int32_t>(data[i]);
    }
}

namespace {

// A numpy view of `data` ([N] or [N, width]) owned by the Python simulator object.
template <typename T>
py::array view(py::handle owner, const T* data, std::size_t n, std::size_t width = 0,
               bool writeable = false) {
    std::vector<py::ssize_t> shape{py::ssize_t(n)};
    if (width) shape.push_back(py::ssize_t(width));
    py::array out(py::dtype::of<T>(), shape, data, owner);
    if (!writeable) out.attr("flags").attr("writeable") = false;
    return out;
}

py::array camera_columns(py::handle owner, const float* first, std::size_t n, std::size_t width) {
    const std::vector<py::ssize_t> shape{py::ssize_t(n), py::ssize_t(width)};
    const std::vector<py::ssize_t> strides{sizeof(gpu::CameraPose), sizeof(float)};
    py::array out(py::dtype::of<float>(), shape, strides, first, owner);
    out.attr("flags").attr("writeable") = false;
    return out;
}

}  // namespace

py::dict arrays(py::handle self) {
    Sim& s = self.cast<Sim&>();
    const sim::EnvState& st = s.state();
    const sim::StepOutputs& o = s.outputs();
    const std::size_t n = s.num_envs();
    py::dict d;
    d["actions"] = view(self, s.actions().data(), n, 0, true);
    d["position"] = view(self, st.position.data()->data(), n, 3);
    d["rotation"] = view(self, st.rotation.data()->data(), n, 4);
    d["goal"] = view(self, st.goal.data()->data(), n, 3);
    d["episode_index"] = view(self, st.episode.data(), n);
    d["scene_index"] = view(self, st.scene.data(), n);
    d["resident_scene"] = view(self, st.resident.data(), n);
    d["active"] = view(self, st.active.data(), n).attr("view")("bool");
    d["pointgoal"] = view(self, o.pointgoal.data()->data(), n, 2);
    d["reward"] = view(self, o.reward.data(), n);
    d["terminated"] = view(self, o.terminated.data(), n).attr("view")("bool");
    d["truncated"] = view(self, o.truncated.data(), n).attr("view")("bool");
    d["success"] = view(self, o.success.data(), n);
    d["spl"] = view(self, o.spl.data(), n);
    d["softspl"] = view(self, o.softspl.data(), n);
    d["distance_to_goal"] = view(self, o.distance_to_goal.data(), n);
    d["collisions"] = view(self, o.collisions.data(), n);
    d["episode_step"] = view(self, o.episode_step.data(), n);
    // The renderer's CameraPose records, as two strided views.
    d["camera_position"] = camera_columns(self, &o.camera.data()->x, n, 3);
    d["camera_rotation"] = camera_columns(self, &o.camera.data()->qx, n, 4);
    return d;
}

py::dict stats(const Sim& s) {
    const sim::SimStats st = s.stats();
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

void bind_sim(py::module_& m) {
    // Action ids are positions in this tuple.
    m.attr("ACTIONS") = py::make_tuple("STOP", "MOVE_FORWARD", "TURN_LEFT", "TURN_RIGHT");
    static_assert(sim::kActionCount == 4, "ACTIONS names every action");
    py::class_<Sim>(m, "BatchSim",
                    "N PointNav environments stepped together (see batchsim.PointNavSim).")
        .def(py::init(&make_sim), py::arg("scene_paths"), py::arg("episode_scene"),
             py::arg("start_position"), py::arg("start_rotation"), py::arg("goal"), py::kw_only(),
             py::arg("num_envs"), py::arg("num_threads") = 1, py::arg("seed") = 0,
             py::arg("mode") = "train", py::arg("scenes_resident") = 1,
             py::arg("steps_per_scene") = sim::SimConfig{}.steps_per_scene,
             py::arg("geodesic") = "corridor", py::arg("autoreset") = "same_step",
             py::arg("loader_bytes_per_second") = sim::SimConfig{}.loader_bytes_per_second,
             py::arg("task") = sim::TaskConfig{})
        .def_property_readonly("num_envs", &Sim::num_envs)
        .def_property_readonly("slot_count", &Sim::slot_count)
        .def_property_readonly("task", [](const Sim& s) { return s.config().task; })
        .def_property_readonly("seed", [](const Sim& s) { return s.config().seed; })
        .def_property_readonly("finished", &Sim::finished)
        .def("reset", &Sim::reset, py::arg("seed") = py::none(),
             py::call_guard<py::gil_scoped_release>())
        .def(
            "reset_envs",
            [](Sim& s, const py::array_t<std::uint8_t, py::array::forcecast>& mask) {
                BATCHSIM_CHECK(mask.ndim() == 1, InvalidArgument,
                               str("mask: expected bool [N], got ", shape_of(mask)));
                std::span<const std::uint8_t> flags(mask.data(), std::size_t(mask.shape(0)));
                py::gil_scoped_release unlocked;
                s.reset_envs(flags);
            },
            py::arg("mask"))
        .def(
            "step",
            [](Sim& s, const py::object& actions) {
                if (!actions.is_none()) {
                    const py::array given = py::array::ensure(actions);
                    BATCHSIM_CHECK(
                        given, InvalidArgument,
                        str("actions: expected an integer array of shape [", s.num_envs(),
                            "], got ",
                            std::string(py::str(py::type::of(actions).attr("__name__")))));
                    set_actions(s, given);
                }
                py::gil_scoped_release unlocked;
                s.step();
            },
            py::arg("actions") = py::none())
        .def("arrays", [](py::handle self) { return arrays(self); })
        .def("stats", &stats);
}

}  // namespace batchsim::bindings
