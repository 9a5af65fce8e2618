#include "vk/device.hpp"

#include <vector>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::vk {

Device create_device(const PhysicalDeviceInfo& physical, const DeviceConfig& config) {
    BATCHSIM_CHECK(
        physical.usable(), Unsupported,
        str("Vulkan device '", physical.name, "' lacks ", join(physical.missing_requirements)));
    BATCHSIM_CHECK(!config.external_interop || physical.supports_interop(), Unsupported,
                   str("Vulkan device '", physical.name,
                       "' cannot share memory with CUDA: it "
                       "lacks the extensions ",
                       join(physical.missing_interop_extensions)));

    Device device;
    device.info = physical;
    device.queue_family = static_cast<std::uint32_t>(physical.compute_queue_family);
    device.external_interop = config.external_interop;

    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue_info.queueFamilyIndex = device.queue_family;
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;

    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    v12.timelineSemaphore = VK_TRUE;
    v12.bufferDeviceAddress = VK_TRUE;
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &v12};
    features.features.shaderInt64 = VK_TRUE;

    std::vector<const char*> extensions;
    if (config.external_interop)
        for (const char* name : interop_extensions()) extensions.push_back(name);

    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features};
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue_info;
    info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    VK_CHECK(vkCreateDevice(physical.handle, &info, nullptr, &device.handle));
    vkGetDeviceQueue(device.handle, device.queue_family, 0, &device.queue);
    vkGetPhysicalDeviceMemoryProperties(physical.handle, &device.memory_properties);
    return device;
}

void destroy_device(Device& device) {
    if (device.handle != VK_NULL_HANDLE) {
        vkDeviceWaitIdle(device.handle);
        vkDestroyDevice(device.handle, nullptr);
    }
    device.handle = VK_NULL_HANDLE;
}

}  // namespace batchsim::vk
