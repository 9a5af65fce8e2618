#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "device/gpu_context.hpp"
#include "vk/device.hpp"
#include "vk/instance.hpp"

using namespace batchsim::vk;

TEST_CASE("an instance without validation creates and destroys cleanly") {
    Instance instance = create_instance({.validation = false});
    CHECK(instance.handle != VK_NULL_HANDLE);
    CHECK_FALSE(instance.validation_enabled);
    destroy_instance(instance);
    CHECK(instance.handle == VK_NULL_HANDLE);
}

TEST_CASE("the validation counter counts real validation errors") {
    if (!validation_layer_available()) {
        WARN("VK_LAYER_KHRONOS_validation is not installed: nothing to count");
        return;
    }
    Instance instance = create_instance({.validation = true});
    REQUIRE(instance.validation_enabled);
    const auto physicals = enumerate_physical_devices(instance.handle);
    Device device = create_device(batchsim::vk::select_physical_device(physicals, ""), {});

    // A zero-sized buffer is invalid usage (VUID-VkBufferCreateInfo-size-00912).
    const auto before = validation_message_total();
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = 0;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    VkBuffer buffer = VK_NULL_HANDLE;
    if (vkCreateBuffer(device.handle, &info, nullptr, &buffer) == VK_SUCCESS && buffer)
        vkDestroyBuffer(device.handle, buffer, nullptr);
    CHECK(instance.validation->messages >= 1);
    CHECK(validation_message_total() > before);

    destroy_device(device);
    destroy_instance(instance);
}
