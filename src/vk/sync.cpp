#include "vk/sync.hpp"

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::vk {

VkSemaphore create_timeline_semaphore(const Device& device, bool exportable) {
    BATCHSIM_CHECK(!exportable || device.external_interop, Unsupported,
                   "exportable semaphores need a device created with external interop");
    VkExportSemaphoreCreateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    export_info.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkSemaphoreTypeCreateInfo type_info{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                        exportable ? &export_info : nullptr};
    type_info.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type_info.initialValue = 0;
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type_info};
    VkSemaphore semaphore = VK_NULL_HANDLE;
    VK_CHECK(vkCreateSemaphore(device.handle, &info, nullptr, &semaphore));
    return semaphore;
}

void destroy_semaphore(const Device& device, VkSemaphore& semaphore) {
    if (semaphore != VK_NULL_HANDLE) vkDestroySemaphore(device.handle, semaphore, nullptr);
    semaphore = VK_NULL_HANDLE;
}

void wait_timeline(const Device& device, VkSemaphore semaphore, std::uint64_t value) {
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.semaphoreCount = 1;
    info.pSemaphores = &semaphore;
    info.pValues = &value;
    const auto timeout =
        std::chrono::duration_cast<std::chrono::nanoseconds>(kHostWaitTimeout).count();
    const VkResult result =
        vkWaitSemaphores(device.handle, &info, static_cast<std::uint64_t>(timeout));
    BATCHSIM_CHECK(result != VK_TIMEOUT, Vulkan,
                   str("GPU work did not finish within ", kHostWaitTimeout.count(),
                       " s (timeline value ", value, " never signalled)"));
    VK_CHECK(result);
}

}  // namespace batchsim::vk
