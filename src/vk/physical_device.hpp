// What each Vulkan physical device is and can do, and choosing one by a user's selector.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <vulkan/vulkan_core.h>

namespace batchsim::vk {

using Uuid = std::array<std::uint8_t, VK_UUID_SIZE>;

struct PhysicalDeviceInfo {
    std::uint32_t index = 0;  // position in vkEnumeratePhysicalDevices order
    VkPhysicalDevice handle = VK_NULL_HANDLE;
    std::string name;
    VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
    std::string driver_name;  // e.g. "NVIDIA", "llvmpipe"
    std::string driver_info;  // e.g. "580.159.04", "Mesa 22.3.6 (LLVM 15.0.6)"
    std::uint32_t api_version = 0;
    Uuid uuid{};  // VkPhysicalDeviceIDProperties::deviceUUID (CUDA reports the same)
    std::int32_t compute_queue_family = -1;  // first family with compute, -1 if none
    // What batchsim needs that this device lacks ("Vulkan 1.2", "timelineSemaphore", ...).
    std::vector<std::string> missing_requirements;
    // Extensions for sharing memory and semaphores with CUDA that this device lacks.
    std::vector<std::string> missing_interop_extensions;

    [[nodiscard]] bool usable() const { return missing_requirements.empty(); }
    [[nodiscard]] bool supports_interop() const { return missing_interop_extensions.empty(); }
};

// The device extensions that CUDA interop needs (memory and timeline semaphore as fds).
std::span<const char* const> interop_extensions();

std::vector<PhysicalDeviceInfo> enumerate_physical_devices(VkInstance instance);

// Selects a device: "" picks the best usable one (discrete > integrated > virtual > CPU);
// "2" is an index; "uuid:<hex>" or a bare 32-digit UUID (dashes allowed) matches the
// device UUID; anything else is a case-insensitive substring of the device name.
// Throws DeviceNotFound listing the available devices when nothing matches.
const PhysicalDeviceInfo& select_physical_device(std::span<const PhysicalDeviceInfo> devices,
                                                 std::string_view selector);

std::string uuid_string(const Uuid& uuid);  // 8-4-4-4-12 lowercase hex
std::string device_type_name(VkPhysicalDeviceType type);
std::string api_version_string(std::uint32_t version);
std::string describe(const PhysicalDeviceInfo& device);  // one line for lists and errors

}  // namespace batchsim::vk
