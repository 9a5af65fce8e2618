// batchsim's error policy, in one place.
//
//  - assert() for our own invariants (compiled out in release builds).
//  - BATCHSIM_CHECK / VK_CHECK for anything the outside world can get wrong: user input,
//    files, drivers. They stay on in release builds and throw batchsim::Error, which names
//    the failed expression, file and line.
//  - batchsim::Error is the one internal error type. Its Kind tells the Python bindings
//    which typed exception (batchsim.Error subclasses) to raise.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include <vulkan/vulkan_core.h>

namespace batchsim {

class Error : public std::runtime_error {
public:
    enum class Kind {
        Internal,         // a bug or an unexpected state: batchsim.Error
        InvalidArgument,  // bad input at an API boundary: batchsim.InvalidArgumentError
        DeviceNotFound,   // no device matches the selection: batchsim.DeviceNotFoundError
        Unsupported,      // a needed feature or extension is missing: batchsim.UnsupportedError
        Vulkan,           // a Vulkan call failed: batchsim.VulkanError
        Cuda,             // a CUDA driver call failed: batchsim.CudaError
        FileNotFound,     // an input file does not exist: batchsim.MissingFileError
        Io,               // reading or writing a file failed: batchsim.FileIoError
        CorruptData,      // a file or model is malformed, truncated or empty: batchsim.FormatError
        Timeout,          // a wait ran out of time (a hang, named): batchsim.WaitTimeoutError
    };

    Error(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    [[nodiscard]] Kind kind() const noexcept { return kind_; }

private:
    Kind kind_;
};

// "VK_ERROR_OUT_OF_DEVICE_MEMORY" etc.; unknown codes print as their number.
std::string_view vk_result_name(VkResult result) noexcept;

[[noreturn]] void throw_error(Error::Kind kind, std::string_view message, const char* file,
                              int line);
[[noreturn]] void throw_vk_error(VkResult result, const char* expression, const char* file,
                                 int line);

}  // namespace batchsim

// Throws batchsim::Error of `kind` with `message` (anything convertible to string_view)
// when `condition` is false.
#define BATCHSIM_CHECK(condition, kind, message)                                                   \
    do {                                                                                           \
        if (!(condition)) [[unlikely]]                                                             \
            ::batchsim::throw_error(::batchsim::Error::Kind::kind, (message), __FILE__, __LINE__); \
    } while (false)

// Evaluates a Vulkan call once; throws batchsim::Error(Kind::Vulkan) naming the call,
// file and line unless it returned VK_SUCCESS. Active in every build type.
#define VK_CHECK(expression)                                                                  \
    do {                                                                                      \
        const VkResult batchsim_vk_result_ = (expression);                                    \
        if (batchsim_vk_result_ != VK_SUCCESS) [[unlikely]]                                   \
            ::batchsim::throw_vk_error(batchsim_vk_result_, #expression, __FILE__, __LINE__); \
    } while (false)
