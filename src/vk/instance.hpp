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

struct Instance {
    VkInstance handle = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    bool validation_enabled = false;
    // Warnings and errors reported by the validation layer for this instance. Heap-held so
    // the debug callback's pointer stays valid when the struct is moved.
    std::unique_ptr<std::atomic<std::uint64_t>> validation_messages;
};

Instance create_instance(const InstanceConfig& config);
void destroy_instance(Instance& instance);

bool validation_layer_available();
// Validation warnings and errors reported by every instance of this process so far.
std::uint64_t validation_message_total();

}  // namespace batchsim::vk
