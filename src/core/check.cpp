#include "core/check.hpp"

#include <filesystem>

#include "core/strings.hpp"

namespace batchsim {

std::string_view vk_result_name(VkResult result) noexcept {
    switch (result) {
#define BATCHSIM_VK_RESULT_CASE(name) \
    case name: return #name;
        BATCHSIM_VK_RESULT_CASE(VK_SUCCESS)
        BATCHSIM_VK_RESULT_CASE(VK_NOT_READY)
        BATCHSIM_VK_RESULT_CASE(VK_TIMEOUT)
        BATCHSIM_VK_RESULT_CASE(VK_INCOMPLETE)
        BATCHSIM_VK_RESULT_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
        BATCHSIM_VK_RESULT_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        BATCHSIM_VK_RESULT_CASE(VK_ERROR_INITIALIZATION_FAILED)
        BATCHSIM_VK_RESULT_CASE(VK_ERROR_DEVICE_LOST)
        BATCHSIM_VK_RESULT_CASE(VK_ERROR_MEMORY_MAP_FAILED)
        BATCHSIM_VK_RESULT_CASE(VK_ERROR_LAYER_NOT_PRESENT)
        BATCHSIM_VK_RESULT_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
        BATCHSIM_VK_RESULT_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
        BATCHSIM_VK_RESULT_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
        BATCHSIM_VK_RESULT_CASE(VK_ERROR_TOO_MANY_OBJECTS)
        BATCHSIM_VK_RESULT_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
        BATCHSIM_VK_RESULT_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
        BATCHSIM_VK_RESULT_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        BATCHSIM_VK_RESULT_CASE(VK_ERROR_UNKNOWN)
#undef BATCHSIM_VK_RESULT_CASE
        default: return "VkResult(unknown)";
    }
}

namespace {
std::string where(const char* file, int line) {
    return str(std::filesystem::path(file).filename().string(), ":", line);
}
}  // namespace

void throw_error(Error::Kind kind, std::string_view message, const char* file, int line) {
    // Internal errors carry the source location; user-facing ones read better without it.
    if (kind == Error::Kind::Internal)
        throw Error(kind, str(message, " (", where(file, line), ")"));
    throw Error(kind, std::string(message));
}

void throw_vk_error(VkResult result, const char* expression, const char* file, int line) {
    const auto message =
        str("Vulkan call failed with ", vk_result_name(result), " (", static_cast<int>(result),
            "): ", expression, " at ", where(file, line));
    throw Error(Error::Kind::Vulkan, message);
}

}  // namespace batchsim
