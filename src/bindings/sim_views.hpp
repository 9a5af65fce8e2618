// What the BatchSim and Simulator bindings share: numpy views and counters out (actions go
// in through the writable `actions` view).
#pragma once

#include <pybind11/pybind11.h>

#include "sim/batch_sim.hpp"

namespace batchsim::bindings {

// Numpy views of the simulator's persistent arrays, owned by `self` (a Python object that
// keeps the BatchSim alive).
pybind11::dict sim_arrays(sim::BatchSim& sim, pybind11::handle owner);
pybind11::dict sim_stats(const sim::BatchSim& sim);
// sim::output_table(), a dict per row: name, dtype, columns, staged, env, env_key, range, doc.
pybind11::list output_table();

}  // namespace batchsim::bindings
