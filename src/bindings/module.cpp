#include "bindings/bindings.hpp"

PYBIND11_MODULE(_core, m) {
    m.doc() =
        "batchsim's C++ core: Vulkan device layer, persistent DLPack tensors, kernels, scenes, "
        "navigation, batch simulation";
    batchsim::bindings::bind_errors(m);
    batchsim::bindings::bind_context(m);
    batchsim::bindings::bind_tensor(m);
    batchsim::bindings::bind_diag(m);
    batchsim::bindings::bind_nav(m);
    batchsim::bindings::bind_scene(m);
    batchsim::bindings::bind_configs(m);
    batchsim::bindings::bind_sim(m);
    batchsim::bindings::bind_render(m);
    batchsim::bindings::bind_env(m);
}
