// batchsim::Error -> the typed Python exceptions of batchsim.errors.
#include <exception>

#include "bindings/bindings.hpp"
#include "core/check.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
namespace {

const char* class_name(Error::Kind kind) {
    switch (kind) {
        case Error::Kind::InvalidArgument: return "InvalidArgumentError";
        case Error::Kind::DeviceNotFound: return "DeviceNotFoundError";
        case Error::Kind::Unsupported: return "UnsupportedError";
        case Error::Kind::Vulkan: return "VulkanError";
        case Error::Kind::Cuda: return "CudaError";
        case Error::Kind::FileNotFound: return "MissingFileError";
        case Error::Kind::Io: return "FileIoError";
        case Error::Kind::CorruptData: return "FormatError";
        case Error::Kind::Timeout: return "WaitTimeoutError";
        case Error::Kind::Internal: break;
    }
    return "Error";
}

}  // namespace

void bind_errors(py::module_& m) {
    // Held for the life of the process: the translator may run during interpreter shutdown.
    static PyObject* errors = py::module_::import("batchsim.errors").release().ptr();
    // pybind11's translator type takes the exception_ptr by value.
    // NOLINTNEXTLINE(performance-unnecessary-value-param)
    py::register_exception_translator([](std::exception_ptr pending) {
        try {
            if (pending) std::rethrow_exception(pending);
        } catch (const Error& error) {
            py::object type =
                py::reinterpret_borrow<py::object>(errors).attr(class_name(error.kind()));
            PyErr_SetString(type.ptr(), error.what());
        }
    });
    m.def(
        "_raise_for_test",
        [](const std::string& kind, const std::string& message) {
            for (auto k : {Error::Kind::Internal, Error::Kind::InvalidArgument,
                           Error::Kind::DeviceNotFound, Error::Kind::Unsupported,
                           Error::Kind::Vulkan, Error::Kind::Cuda, Error::Kind::FileNotFound,
                           Error::Kind::Io, Error::Kind::CorruptData, Error::Kind::Timeout})
                if (kind == class_name(k)) throw Error(k, message);
            throw Error(Error::Kind::InvalidArgument, "unknown error kind " + kind);
        },
        "Raises the batchsim error `kind` (a class name of batchsim.errors); for tests.");
}

}  // namespace batchsim::bindings
