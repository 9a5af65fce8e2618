// One registration function per subsystem; module.cpp calls them in order.
#pragma once

#include <pybind11/pybind11.h>

namespace batchsim::bindings {

void bind_errors(pybind11::module_& m);
void bind_context(pybind11::module_& m);
void bind_tensor(pybind11::module_& m);
void bind_diag(pybind11::module_& m);
void bind_nav(pybind11::module_& m);
void bind_scene(pybind11::module_& m);
void bind_configs(pybind11::module_& m);
void bind_sim(pybind11::module_& m);
void bind_render(pybind11::module_& m);
void bind_env(pybind11::module_& m);

}  // namespace batchsim::bindings
