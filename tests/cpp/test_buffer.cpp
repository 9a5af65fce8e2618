#include <catch2/catch.hpp>

#include <cstring>

#include "core/check.hpp"
#include "vk/buffer.hpp"
#include "vk/instance.hpp"

using batchsim::Error;
using namespace batchsim::vk;

namespace {

struct Fixture {
    Instance instance = create_instance({.validation = true});
    Device device;
    Fixture() {
        const auto physicals = enumerate_physical_devices(instance.handle);
        device = create_device(select_physical_device(physicals, ""), {});
    }
    ~Fixture() {
        destroy_device(device);
        destroy_instance(instance);
    }
};

}  // namespace

TEST_CASE_METHOD(Fixture, "host-visible buffers are mapped, addressable and writable") {
    Buffer buffer = create_buffer(device, {.size = 1000, .location = MemoryLocation::HostVisible});
    REQUIRE(buffer.mapped != nullptr);
    CHECK(buffer.address != 0);
    CHECK(buffer.size == 1000);
    CHECK(buffer.allocation_size >= 1000);
    std::memset(buffer.mapped, 0x5a, 1000);
    CHECK(static_cast<unsigned char*>(buffer.mapped)[999] == 0x5a);
    destroy_buffer(device, buffer);
    CHECK(buffer.handle == VK_NULL_HANDLE);
}

TEST_CASE_METHOD(Fixture, "device-local buffers are not mapped") {
    Buffer buffer = create_buffer(device, {.size = 64, .location = MemoryLocation::DeviceLocal});
    CHECK(buffer.mapped == nullptr);
    CHECK(buffer.address != 0);
    destroy_buffer(device, buffer);
}

TEST_CASE_METHOD(Fixture, "bad buffer requests fail with clear errors") {
    CHECK_THROWS_WITH(create_buffer(device, {.size = 0}), Catch::Contains("must be positive"));
    CHECK_THROWS_WITH(create_buffer(device, {.size = 64, .exportable = true}),
                      Catch::Contains("external interop"));
}

TEST_CASE("find_memory_type honours required and preferred flags") {
    VkPhysicalDeviceMemoryProperties properties{};
    properties.memoryTypeCount = 3;
    properties.memoryTypes[0].propertyFlags = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    properties.memoryTypes[1].propertyFlags =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    properties.memoryTypes[2].propertyFlags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                              VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                              VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    const VkMemoryPropertyFlags host =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    CHECK(find_memory_type(properties, 0b111, host, VK_MEMORY_PROPERTY_HOST_CACHED_BIT) == 2);
    CHECK(find_memory_type(properties, 0b011, host, VK_MEMORY_PROPERTY_HOST_CACHED_BIT) == 1);
    CHECK(find_memory_type(properties, 0b111, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0) == 0);
    CHECK_THROWS_AS(find_memory_type(properties, 0b001, host, 0), Error);
}
