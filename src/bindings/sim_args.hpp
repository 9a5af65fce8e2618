// What the BatchSim and Simulator bindings share: building the simulator's configuration and
// episodes from Python arguments, setting actions and viewing the results.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "bindings/arrays.hpp"
#include "sim/batch_sim.hpp"

namespace batchsim::bindings {

// Throws Error(InvalidArgument) naming a bad choice (mode, geodesic, autoreset).
sim::SimConfig sim_config(int num_envs, int num_threads, std::uint64_t seed,
                          const std::string& mode, int scenes_resident, int steps_per_scene,
                          const std::string& geodesic, const std::string& autoreset,
                          double loader_bytes_per_second, const sim::TaskConfig& task);
sim::EpisodeSet episode_set(std::vector<std::filesystem::path> scene_paths, const IntArray& scene,
                            const FloatArray& start_position, const FloatArray& start_rotation,
                            const FloatArray& goal);
// Copies an integer array of shape [N] into the action buffer, checking every value.
void set_actions(sim::BatchSim& s, const pybind11::array& given);
// Numpy views of the simulator's persistent arrays, owned by `self` (a Python BatchSim).
pybind11::dict arrays(pybind11::handle self);
pybind11::dict stats(const sim::BatchSim& s);

}  // namespace batchsim::bindings
