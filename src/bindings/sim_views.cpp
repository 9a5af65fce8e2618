#include "bindings/sim_views.hpp"

#include <vector>

#include <pybind11/numpy.h>

#include "bindings/arrays.hpp"
#include "sim/outputs.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
namespace {

using Shape = std::vector<py::ssize_t>;

// A read-only numpy view of `row`'s values, [N] or [N, columns], that keeps `owner` alive.
py::array row_view(const sim::BatchSim& sim, const sim::OutputRow& row, py::handle owner) {
    const auto n = py::ssize_t(sim.num_envs());
    const auto stride = py::ssize_t(row.stride);
    const auto value_bytes = py::ssize_t(row.row_bytes() / std::size_t(row.columns));
    const bool vector = row.columns == 1;
    const Shape shape = vector ? Shape{n} : Shape{n, row.columns};
    const Shape strides = vector ? Shape{stride} : Shape{stride, value_bytes};
    py::array out(py::dtype(std::string(sim::name_of(row.element))), shape, strides, row.first(sim),
                  owner);
    out.attr("flags").attr("writeable") = false;
    return out;
}

}  // namespace

py::dict sim_arrays(sim::BatchSim& sim, py::handle owner) {
    const auto n = py::ssize_t(sim.num_envs());
    py::dict d;
    // The one writable array, the step's input: callers write actions in place.
    d["actions"] = py::array(py::dtype::of<std::int32_t>(), Shape{n}, sim.actions().data(), owner);
    for (const sim::OutputRow& row : sim::output_table())
        d[py::str(std::string(row.name))] = row_view(sim, row, owner);
    return d;
}

// The rows of sim::output_table() as dicts, for the Python layer (batchsim._outputs).
py::list output_table() {
    py::list rows;
    for (const sim::OutputRow& row : sim::output_table()) {
        py::dict d;
        d["name"] = std::string(row.name);
        d["dtype"] = std::string(sim::name_of(row.element));
        d["columns"] = row.columns;
        d["staged"] = row.staged;
        d["env"] = std::string(sim::name_of(row.env));
        d["env_key"] = std::string(row.env_key.empty() ? row.name : row.env_key);
        d["range"] = std::string(sim::name_of(row.range));
        d["doc"] = std::string(row.doc);
        rows.append(d);
    }
    return rows;
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
