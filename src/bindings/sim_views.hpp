// What the BatchSim and Simulator bindings share: actions in, numpy views and counters out.
#pragma once

#include <pybind11/pybind11.h>

#include "sim/batch_sim.hpp"

namespace batchsim::bindings {

// Copies `actions` (None: keep the buffer) into the action buffer. It must be int32 [N]
// (batchsim's Python layer converts and checks any array or tensor first); the core checks
// the values when it steps.
void set_actions(sim::BatchSim& sim, const pybind11::object& actions);
// Numpy views of the simulator's persistent arrays, owned by `self` (a Python object that
// keeps the BatchSim alive).
pybind11::dict sim_arrays(sim::BatchSim& sim, pybind11::handle owner);
pybind11::dict sim_stats(const sim::BatchSim& sim);
// sim::output_table(), a dict per row: name, dtype, columns, staged, env, env_key, range, doc.
pybind11::list output_table();

}  // namespace batchsim::bindings
