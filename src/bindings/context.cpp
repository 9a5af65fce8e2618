// batchsim.Context (GpuContext) and device discovery.
#include <cstdlib>
#include <optional>
#include <string>
#include <variant>

#include <pybind11/stl.h>

#include "bindings/bindings.hpp"
#include "core/check.hpp"
#include "core/strings.hpp"
#include "device/cuda_driver.hpp"
#include "device/gpu_context.hpp"
#include "device/tensor.hpp"
#include "render/batch_renderer.hpp"
#include "vk/instance.hpp"
#include "vk/memory.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
namespace {

using DeviceArg = std::optional<std::variant<int, std::string>>;

std::string selector_from(const DeviceArg& device) {
    if (!device) return "";
    if (const int* index = std::get_if<int>(&*device)) {
        BATCHSIM_CHECK(*index >= 0, InvalidArgument,
                       str("device index must be >= 0, got ", *index));
        return std::to_string(*index);
    }
    return std::get<std::string>(*device);
}

device::ExportTarget export_from(const std::string& name) {
    if (name == "auto") return device::ExportTarget::Auto;
    if (name == "cpu") return device::ExportTarget::Cpu;
    if (name == "cuda") return device::ExportTarget::Cuda;
    BATCHSIM_CHECK(false, InvalidArgument,
                   str("export must be 'auto', 'cpu' or 'cuda', got '", name, "'"));
    return device::ExportTarget::Auto;
}

// validation=None follows BATCHSIM_VALIDATION (1/true/yes), so test suites switch it on.
bool validation_from(std::optional<bool> validation) {
    if (validation) return *validation;
    const char* env = std::getenv("BATCHSIM_VALIDATION");
    if (!env) return false;
    const std::string value(env);
    return value == "1" || value == "true" || value == "yes";
}

py::dict device_dict(const vk::PhysicalDeviceInfo& d) {
    py::dict out;
    out["index"] = d.index;
    out["name"] = d.name;
    out["type"] = vk::device_type_name(d.type);
    out["driver_name"] = d.driver_name;
    out["driver_info"] = d.driver_info;
    out["api_version"] = vk::api_version_string(d.api_version);
    out["uuid"] = vk::uuid_string(d.uuid);
    out["usable"] = d.usable();
    out["missing"] = d.missing_requirements;
    out["cuda_interop_extensions"] = d.supports_interop();
    out["missing_interop_extensions"] = d.missing_interop_extensions;
    return out;
}

py::dict cuda_status() {
    py::dict out;
    std::string why_not;
    const device::cuda::Driver* driver = device::cuda::driver(&why_not);
    out["available"] = driver != nullptr;
    out["reason"] = driver ? "" : why_not;
    out["driver_version"] = driver ? driver->version : 0;
    py::list devices;
    for (const auto& d : device::cuda::list_devices()) {
        vk::Uuid uuid{};
        std::copy(std::begin(d.uuid), std::end(d.uuid), uuid.begin());
        devices.append(py::dict(py::arg("ordinal") = d.ordinal, py::arg("name") = d.name,
                                py::arg("uuid") = vk::uuid_string(uuid)));
    }
    out["devices"] = devices;
    return out;
}

std::shared_ptr<device::GpuContext> make_context(const DeviceArg& device,
                                                 std::optional<bool> validation,
                                                 const std::string& export_target) {
    device::GpuContext::Config config{.device = selector_from(device),
                                      .validation = validation_from(validation),
                                      .export_target = export_from(export_target)};
    py::gil_scoped_release release;
    return std::make_shared<device::GpuContext>(config);
}

std::shared_ptr<device::PersistentTensor> make_tensor(
    const std::shared_ptr<device::GpuContext>& context, const std::vector<std::int64_t>& shape,
    const std::string& dtype) {
    const device::DType parsed = device::parse_dtype(dtype);
    py::gil_scoped_release release;
    return device::PersistentTensor::create(context, shape, parsed);
}

}  // namespace

void bind_context(py::module_& m) {
    m.def(
        "list_devices",
        [] {
            py::list out;
            for (const auto& d : device::list_vulkan_devices()) out.append(device_dict(d));
            return out;
        },
        "Every Vulkan device of this machine, as dicts (name, type, driver, uuid, ...).");
    m.def("cuda_status", &cuda_status,
          "Whether the CUDA driver loaded (and why not), its version and its devices.");
    m.def("validation_layer_available", &vk::validation_layer_available,
          "True when VK_LAYER_KHRONOS_validation is installed.");
    m.def("validation_message_total", &vk::validation_message_total,
          "Validation warnings and errors reported by every Context of this process so far.");
    m.def("vulkan_allocations", &vk::live_allocations,
          "Vulkan memory allocations alive in this process (every Context): for leak checks.");
    m.def("validation_suppressed_total", &vk::validation_suppressed_total,
          "Validation reports set aside because the layer cannot see CUDA's semaphore signals.");

    py::class_<device::GpuContext, std::shared_ptr<device::GpuContext>>(m, "Context", R"doc(
A Vulkan device (and on NVIDIA its CUDA twin) that renderers, kernels and tensors share.

device: None (best device), an index, "uuid:<hex>", "cuda:<n>" or part of a device name;
        the environment variable BATCHSIM_DEVICE overrides it.
validation: enable the Khronos validation layer when installed; None follows
        BATCHSIM_VALIDATION.
export: "auto" (CUDA when possible), "cpu" or "cuda".)doc")
        .def(py::init(&make_context), py::arg("device") = py::none(),
             py::arg("validation") = py::none(), py::arg("export") = "auto")
        .def_property_readonly(
            "device_info", [](const device::GpuContext& c) { return device_dict(c.device().info); })
        .def_property_readonly("exports_cuda", &device::GpuContext::exports_cuda)
        .def_property_readonly("cuda_device",
                               [](const device::GpuContext& c) -> std::optional<int> {
                                   if (!c.exports_cuda()) return std::nullopt;
                                   return c.cuda_ordinal();
                               })
        .def_property_readonly("torch_device",
                               [](const device::GpuContext& c) {
                                   return c.exports_cuda() ? str("cuda:", c.cuda_ordinal())
                                                           : std::string("cpu");
                               })
        .def_property_readonly(
            "render_backend",
            [](const device::GpuContext& c) {
                return render::backend_name(render::choose_backend(c.device()));
            },
            "the renderer backend backend='auto' picks on this device")
        .def_property_readonly("validation_enabled", &device::GpuContext::validation_enabled)
        .def_property_readonly("validation_messages", &device::GpuContext::validation_messages)
        .def("tensor", &make_tensor, py::arg("shape"), py::arg("dtype") = "float32",
             "A persistent tensor on this device (float32, float16, int32, int64, uint8).")
        .def("wait_idle", &device::GpuContext::wait_idle, py::call_guard<py::gil_scoped_release>(),
             "Blocks until all submitted GPU work has finished.");
}

}  // namespace batchsim::bindings
