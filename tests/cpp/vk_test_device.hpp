// A Vulkan device for tests, under the validation layer: the test fails if Vulkan reported
// anything while it lived.
#pragma once

#include <catch2/catch.hpp>

#include "vk/device.hpp"
#include "vk/instance.hpp"

namespace batchsim::test {

struct ValidatedDevice {
    vk::Instance instance = vk::create_instance({.validation = true});
    vk::Device device;
    std::uint64_t messages_before = vk::validation_message_total();
    ValidatedDevice() {
        const auto physicals = vk::enumerate_physical_devices(instance.handle);
        device = vk::create_device(vk::select_physical_device(physicals, ""), {});
    }
    ~ValidatedDevice() {
        vk::destroy_device(device);
        vk::destroy_instance(instance);
        CHECK(vk::validation_message_total() == messages_before);
    }
    ValidatedDevice(const ValidatedDevice&) = delete;
    ValidatedDevice& operator=(const ValidatedDevice&) = delete;
};

}  // namespace batchsim::test
