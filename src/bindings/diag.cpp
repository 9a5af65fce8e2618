// batchsim._core.PatternFill: the self-test kernel.
#include <pybind11/stl.h>

#include "bindings/bindings.hpp"
#include "diag/pattern_fill.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
void bind_diag(py::module_& m) {
    py::class_<PatternFill, std::shared_ptr<PatternFill>>(m, "PatternFill", R"doc(
Compute kernel writing value[i] = ((i*131 + seed*7919) mod 2^32) mod 1000003 as float32.
Used by `batchsim doctor` and the tests to prove dispatch, sync and zero-copy export.)doc")
        .def(py::init<std::shared_ptr<device::GpuContext>>(), py::arg("context"))
        .def(
            "run",
            [](PatternFill& fill, device::PersistentTensor& tensor, std::uint32_t seed,
               std::uintptr_t stream) {
                py::gil_scoped_release release;
                fill.run(tensor, seed, stream);
            },
            py::arg("tensor"), py::arg("seed"), py::arg("stream") = 0,
            "`stream`: the consumer's CUDA stream (0 = the default stream)")
        .def_static("expected", &PatternFill::expected, py::arg("index"), py::arg("seed"));
}

}  // namespace batchsim::bindings
