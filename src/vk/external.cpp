#include "vk/external.hpp"

#include "core/check.hpp"

namespace batchsim::vk {
namespace {

template <typename Function>
Function device_function(const Device& device, const char* name) {
    auto function = reinterpret_cast<Function>(vkGetDeviceProcAddr(device.handle, name));
    BATCHSIM_CHECK(function != nullptr, Unsupported,
                   std::string(name) +
                       " is unavailable: the device was created without the "
                       "external memory/semaphore fd extensions");
    return function;
}

}  // namespace

int export_memory_fd(const Device& device, VkDeviceMemory memory) {
    auto get_fd = device_function<PFN_vkGetMemoryFdKHR>(device, "vkGetMemoryFdKHR");
    VkMemoryGetFdInfoKHR info{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    info.memory = memory;
    info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    VK_CHECK(get_fd(device.handle, &info, &fd));
    return fd;
}

int export_semaphore_fd(const Device& device, VkSemaphore semaphore) {
    auto get_fd = device_function<PFN_vkGetSemaphoreFdKHR>(device, "vkGetSemaphoreFdKHR");
    VkSemaphoreGetFdInfoKHR info{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
    info.semaphore = semaphore;
    info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    VK_CHECK(get_fd(device.handle, &info, &fd));
    return fd;
}

}  // namespace batchsim::vk
