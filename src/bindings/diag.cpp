// batchsim._core.PatternFill: the self-test kernel.
#include <optional>

#include <pybind11/stl.h>

#include "bindings/bindings.hpp"
#include "diag/pattern_fill.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
namespace {

// The consumer stream for CUDA export when the caller names none: PyTorch's current
// stream (through batchsim._streams), else the legacy default stream.
std::uintptr_t stream_or_current(const device::PersistentTensor& tensor,
                                 std::optional<std::int64_t> stream) {
    if (stream) return static_cast<std::uintptr_t>(*stream);
    if (!tensor.context()->exports_cuda()) return 0;
    return py::module_::import("batchsim._streams")
        .attr("current_stream")(tensor.context()->cuda_ordinal())
        .cast<std::uintptr_t>();
}

}  // namespace

void bind_diag(py::module_& m) {
    py::class_<PatternFill, std::shared_ptr<PatternFill>>(m, "PatternFill", R"doc(
Compute kernel writing value[i] = ((i*131 + seed*7919) mod 2^32) mod 1000003 as float32.
Used by `batchsim doctor` and the tests to prove dispatch, sync and zero-copy export.)doc")
        .def(py::init<std::shared_ptr<device::GpuContext>>(), py::arg("context"))
        .def(
            "run",
            [](PatternFill& fill, device::PersistentTensor& tensor, std::uint32_t seed,
               std::optional<std::int64_t> stream) {
                const std::uintptr_t s = stream_or_current(tensor, stream);
                py::gil_scoped_release release;
                fill.run(tensor, seed, s);
            },
            py::arg("tensor"), py::arg("seed"), py::arg("stream") = py::none())
        .def_static("expected", &PatternFill::expected, py::arg("index"), py::arg("seed"));
}

}  // namespace batchsim::bindings
