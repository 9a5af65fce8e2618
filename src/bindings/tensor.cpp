// batchsim.Tensor: a persistent buffer exported zero-copy through the DLPack protocol.
#include <optional>

#include <pybind11/stl.h>

#include "bindings/bindings.hpp"
#include "core/check.hpp"
#include "core/strings.hpp"
#include "device/tensor.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
namespace {

constexpr const char* kCapsuleName = "dltensor";

// Runs the deleter only if no consumer took the tensor (consumers rename the capsule).
void delete_unconsumed_capsule(PyObject* capsule) {
    if (!PyCapsule_IsValid(capsule, kCapsuleName)) return;
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
    if (managed && managed->deleter) managed->deleter(managed);
}

py::object to_capsule(DLManagedTensor* managed) {
    PyObject* capsule = PyCapsule_New(managed, kCapsuleName, delete_unconsumed_capsule);
    if (!capsule) {
        managed->deleter(managed);
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::object>(capsule);
}

// The DLPack protocol (array API standard): `stream` is the consumer's CUDA stream (1 = the
// legacy default stream, -1 = do not synchronise); results become visible on it.
py::object dlpack(device::PersistentTensor& tensor, std::optional<std::int64_t> stream,
                  const py::object& /*max_version*/, std::optional<py::tuple> dl_device,
                  std::optional<bool> copy) {
    if (copy.value_or(false))
        throw py::buffer_error(
            "batchsim tensors are exported without copies; copy=True is "
            "not supported (clone the consumer's tensor instead)");
    const DLDevice own = tensor.dl_device();
    if (dl_device && (py::cast<int>((*dl_device)[0]) != own.device_type ||
                      py::cast<int>((*dl_device)[1]) != own.device_id))
        throw py::buffer_error(str("this tensor lives on ", tensor.device_name(),
                                   " and cannot be exported to another device without a copy"));
    if (own.device_type == kDLCUDA) {
        const std::int64_t s = stream.value_or(1);
        if (s != -1) {
            py::gil_scoped_release release;
            tensor.context()->make_visible(static_cast<std::uintptr_t>(s));
        }
    }
    // max_version is accepted and ignored: the producer answers with an unversioned
    // "dltensor" capsule (DLPack 0.x), which the protocol allows.
    return to_capsule(tensor.export_dlpack());
}

}  // namespace

void bind_tensor(py::module_& m) {
    py::class_<device::PersistentTensor, std::shared_ptr<device::PersistentTensor>>(m, "Tensor",
                                                                                    R"doc(
A GPU buffer created once and shared zero-copy with PyTorch (or any DLPack consumer).

torch.from_dlpack(t) aliases the buffer: every later kernel write to it shows in the same
torch tensor. The torch tensor keeps the buffer and its Context alive.)doc")
        .def_property_readonly(
            "shape",
            [](const device::PersistentTensor& t) { return py::tuple(py::cast(t.shape())); })
        .def_property_readonly("dtype",
                               [](const device::PersistentTensor& t) {
                                   return std::string(device::dtype_name(t.dtype()));
                               })
        .def_property_readonly("device", &device::PersistentTensor::device_name)
        .def_property_readonly("data_ptr", &device::PersistentTensor::data_ptr)
        .def_property_readonly("nbytes", &device::PersistentTensor::nbytes)
        .def_property_readonly("numel", &device::PersistentTensor::numel)
        .def_property_readonly(
            "_owner_count",
            [](const std::shared_ptr<device::PersistentTensor>& t) { return t.use_count() - 1; },
            "Owners of the buffer besides this call: Python handles and live DLPack exports.")
        .def("__dlpack__", &dlpack, py::kw_only(), py::arg("stream") = py::none(),
             py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(),
             py::arg("copy") = py::none())
        .def("__dlpack_device__",
             [](const device::PersistentTensor& t) {
                 const DLDevice d = t.dl_device();
                 return py::make_tuple(static_cast<int>(d.device_type), d.device_id);
             })
        .def(
            "torch",
            [](const py::object& self) {
                return py::module_::import("torch").attr("from_dlpack")(self);
            },
            "torch.from_dlpack(self): a torch tensor aliasing this buffer.")
        .def("__repr__", [](const device::PersistentTensor& t) {
            return str("batchsim.Tensor(shape=(", join_shape(t.shape()),
                       t.shape().size() == 1 ? ",)" : ")",
                       ", dtype=", device::dtype_name(t.dtype()), ", device='", t.device_name(),
                       "')");
        });
}

}  // namespace batchsim::bindings
