#include "vk/physical_device.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <optional>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::vk {
namespace {

constexpr const char* kInteropExtensions[] = {
    VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
    VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME,
};

std::vector<std::string> device_extensions(VkPhysicalDevice device) {
    std::uint32_t count = 0;
    VK_CHECK(vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr));
    std::vector<VkExtensionProperties> properties(count);
    VK_CHECK(vkEnumerateDeviceExtensionProperties(device, nullptr, &count, properties.data()));
    std::vector<std::string> names;
    names.reserve(properties.size());
    for (const auto& p : properties) names.emplace_back(p.extensionName);
    return names;
}

std::int32_t find_compute_queue_family(VkPhysicalDevice device) {
    std::uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families.data());
    for (std::uint32_t i = 0; i < count; ++i)
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) return static_cast<std::int32_t>(i);
    return -1;
}

// Vulkan 1.2 features batchsim relies on everywhere; names match the spec's field names.
std::vector<std::string> missing_features(VkPhysicalDevice device) {
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &v12};
    vkGetPhysicalDeviceFeatures2(device, &features);
    std::vector<std::string> missing;
    if (!v12.timelineSemaphore) missing.emplace_back("timelineSemaphore");
    if (!v12.bufferDeviceAddress) missing.emplace_back("bufferDeviceAddress");
    if (!features.features.shaderInt64) missing.emplace_back("shaderInt64");
    return missing;
}

PhysicalDeviceInfo describe_device(VkPhysicalDevice handle, std::uint32_t index) {
    VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
                                            &id};
    VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &driver};
    vkGetPhysicalDeviceProperties2(handle, &properties);

    PhysicalDeviceInfo info;
    info.index = index;
    info.handle = handle;
    info.name = properties.properties.deviceName;
    info.type = properties.properties.deviceType;
    info.driver_name = driver.driverName;
    info.driver_info = driver.driverInfo;
    info.api_version = properties.properties.apiVersion;
    std::copy(std::begin(id.deviceUUID), std::end(id.deviceUUID), info.uuid.begin());
    info.compute_queue_family = find_compute_queue_family(handle);

    if (info.api_version < VK_API_VERSION_1_2) {
        info.missing_requirements.push_back(
            str("Vulkan 1.2 (device has ", api_version_string(info.api_version), ")"));
    } else {
        info.missing_requirements = missing_features(handle);
    }
    if (info.compute_queue_family < 0) info.missing_requirements.emplace_back("a compute queue");

    const auto extensions = device_extensions(handle);
    for (const char* needed : kInteropExtensions)
        if (std::find(extensions.begin(), extensions.end(), needed) == extensions.end())
            info.missing_interop_extensions.emplace_back(needed);
    return info;
}

int type_rank(VkPhysicalDeviceType type) {
    switch (type) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
        default: return 4;
    }
}

std::string lowercase(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// "uuid:6d65..." or a bare 32-hex-digit UUID (dashes ignored); nullopt if not a UUID.
std::optional<std::string> parse_uuid_selector(std::string_view selector) {
    bool explicit_prefix = selector.starts_with("uuid:");
    if (explicit_prefix) selector.remove_prefix(5);
    std::string hex;
    for (char c : selector) {
        if (c == '-') continue;
        if (!std::isxdigit(static_cast<unsigned char>(c))) {
            hex.clear();
            break;
        }
        hex.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    if (hex.size() == 32) return hex;
    BATCHSIM_CHECK(
        !explicit_prefix, InvalidArgument,
        str("device selector 'uuid:", selector, "' is not a UUID: expected 32 hexadecimal digits"));
    return std::nullopt;
}

bool is_index(std::string_view selector) {
    return !selector.empty() && selector.size() < 6 &&
           std::all_of(selector.begin(), selector.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::string uuid_hex(const Uuid& uuid) {
    std::string hex = uuid_string(uuid);
    std::erase(hex, '-');
    return hex;
}

std::string available_list(std::span<const PhysicalDeviceInfo> devices) {
    if (devices.empty()) return "no Vulkan devices are available (is a Vulkan driver installed?)";
    std::string list = "available devices:";
    for (const auto& device : devices) list += "\n  " + describe(device);
    return list;
}

const PhysicalDeviceInfo& best_device(std::span<const PhysicalDeviceInfo> devices) {
    const PhysicalDeviceInfo* best = nullptr;
    for (const auto& device : devices)
        if (device.usable() && (!best || type_rank(device.type) < type_rank(best->type)))
            best = &device;
    BATCHSIM_CHECK(best != nullptr, DeviceNotFound,
                   str("no usable Vulkan device; ", available_list(devices)));
    return *best;
}

const PhysicalDeviceInfo& matching_device(std::span<const PhysicalDeviceInfo> devices,
                                          std::string_view selector) {
    const auto uuid = parse_uuid_selector(selector);
    const auto needle = lowercase(selector);
    for (const auto& device : devices) {
        const bool match = is_index(selector) ? std::to_string(device.index) == selector
                           : uuid             ? uuid_hex(device.uuid) == *uuid
                                  : lowercase(device.name).find(needle) != std::string::npos;
        if (match) return device;
    }
    BATCHSIM_CHECK(false, DeviceNotFound,
                   str("no Vulkan device matches '", selector,
                       "' (expected an index, a UUID "
                       "or part of a device name); ",
                       available_list(devices)));
    return devices.front();  // unreachable
}

}  // namespace

std::span<const char* const> interop_extensions() {
    return kInteropExtensions;
}

std::vector<PhysicalDeviceInfo> enumerate_physical_devices(VkInstance instance) {
    std::uint32_t count = 0;
    VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, nullptr));
    std::vector<VkPhysicalDevice> handles(count);
    VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, handles.data()));
    std::vector<PhysicalDeviceInfo> devices;
    for (std::uint32_t i = 0; i < count; ++i) devices.push_back(describe_device(handles[i], i));
    return devices;
}

const PhysicalDeviceInfo& select_physical_device(std::span<const PhysicalDeviceInfo> devices,
                                                 std::string_view selector) {
    if (selector.empty()) return best_device(devices);
    const auto& device = matching_device(devices, selector);
    BATCHSIM_CHECK(device.usable(), Unsupported,
                   str("Vulkan device '", device.name, "' cannot run batchsim: it lacks ",
                       join(device.missing_requirements)));
    return device;
}

std::string uuid_string(const Uuid& uuid) {
    std::string out;
    char byte[3];
    for (std::size_t i = 0; i < uuid.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
        std::snprintf(byte, sizeof byte, "%02x", uuid[i]);
        out += byte;
    }
    return out;
}

std::string device_type_name(VkPhysicalDeviceType type) {
    switch (type) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
        default: return "other";
    }
}

std::string api_version_string(std::uint32_t version) {
    return str(VK_API_VERSION_MAJOR(version), ".", VK_API_VERSION_MINOR(version), ".",
               VK_API_VERSION_PATCH(version));
}

std::string describe(const PhysicalDeviceInfo& device) {
    return str("[", device.index, "] ", device.name, " (", device_type_name(device.type),
               ", driver ", device.driver_name, " ", device.driver_info, ", Vulkan ",
               api_version_string(device.api_version), ", uuid ", uuid_string(device.uuid), ")");
}

}  // namespace batchsim::vk
