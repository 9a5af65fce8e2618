// The Vulkan instance, with the Khronos validation layer when asked for and installed.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include <vulkan/vulkan_core.h>

namespace batchsim::vk {

struct InstanceConfig {
    bool validation = false;  // enable VK_LAYER_KHRONOS_validation if it is installed
};

// What the debug callback counts for one instance. Heap-held so the callback's pointer
// stays valid when the Instance struct is moved.
struct ValidationState {
    std::atomic<std::uint64_t> messages{0};  // warnings and errors reported
    // Set when queue submissions wait on timeline values that CUDA signals. The layer cannot
    // see those signals, so it believes such submissions never finish and reports their
    // command buffers and pipelines as "in use" forever; those reports are then counted in
    // `suppressed` instead. The CPU-export path runs the same code with full checking.
    std::atomic<bool> external_signals{false};
    std::atomic<std::uint64_t> suppressed{0};
};

struct Instance {
    VkInstance handle = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    bool validation_enabled = false;
    std::unique_ptr<ValidationState> validation;
};

Instance create_instance(const InstanceConfig& config);
void destroy_instance(Instance& instance);

bool validation_layer_available();
// Validation warnings and errors reported by every instance of this process so far.
std::uint64_t validation_message_total();
// Reports set aside as artefacts of CUDA-signalled waits (see ValidationState).
std::uint64_t validation_suppressed_total();

}  // namespace batchsim::vk
