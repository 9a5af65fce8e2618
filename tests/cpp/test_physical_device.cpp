#include <catch2/catch.hpp>

#include <vector>

#include "core/check.hpp"
#include "device/gpu_context.hpp"
#include "vk/physical_device.hpp"

using batchsim::Error;
using namespace batchsim::vk;

namespace {

PhysicalDeviceInfo fake(std::uint32_t index, std::string name, VkPhysicalDeviceType type,
                        std::uint8_t uuid_byte) {
    PhysicalDeviceInfo info;
    info.index = index;
    info.name = std::move(name);
    info.type = type;
    info.uuid.fill(uuid_byte);
    info.compute_queue_family = 0;
    return info;
}

std::vector<PhysicalDeviceInfo> machine() {
    return {fake(0, "llvmpipe (LLVM 15.0.6, 256 bits)", VK_PHYSICAL_DEVICE_TYPE_CPU, 0x11),
            fake(1, "NVIDIA H200", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 0xab),
            fake(2, "NVIDIA H100 80GB HBM3", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 0xcd)};
}

Error::Kind kind_of(const std::vector<PhysicalDeviceInfo>& devices, std::string_view selector) {
    try {
        (void)select_physical_device(devices, selector);
    } catch (const Error& error) {
        return error.kind();
    }
    FAIL("selection did not throw");
    return Error::Kind::Internal;
}

}  // namespace

TEST_CASE("an empty selector prefers discrete GPUs, then the lowest index") {
    const auto devices = machine();
    CHECK(select_physical_device(devices, "").index == 1);
}

TEST_CASE("selectors match by index, UUID or case-insensitive name") {
    const auto devices = machine();
    CHECK(select_physical_device(devices, "2").index == 2);
    CHECK(select_physical_device(devices, "h100").index == 2);
    CHECK(select_physical_device(devices, "LLVMPIPE").index == 0);
    CHECK(select_physical_device(devices, "uuid:" + uuid_string(devices[2].uuid)).index == 2);
    std::string bare_hex;
    for (int i = 0; i < 16; ++i) bare_hex += "AB";
    CHECK(select_physical_device(devices, bare_hex).index == 1);  // bare, upper case
}

TEST_CASE("bad selectors fail with the right kind and list the devices") {
    const auto devices = machine();
    CHECK(kind_of(devices, "7") == Error::Kind::DeviceNotFound);
    CHECK(kind_of(devices, "radeon") == Error::Kind::DeviceNotFound);
    CHECK(kind_of(devices, "uuid:xyz") == Error::Kind::InvalidArgument);
    CHECK(kind_of(devices, "uuid:" + std::string(32, '0')) == Error::Kind::DeviceNotFound);
    try {
        (void)select_physical_device(devices, "radeon");
    } catch (const Error& error) {
        CHECK_THAT(error.what(), Catch::Contains("[1] NVIDIA H200 (discrete GPU"));
    }
}

TEST_CASE("devices lacking requirements are skipped or rejected by name") {
    auto devices = machine();
    devices[1].missing_requirements = {"timelineSemaphore"};
    CHECK(select_physical_device(devices, "").index == 2);
    CHECK(kind_of(devices, "H200") == Error::Kind::Unsupported);
    for (auto& d : devices) d.missing_requirements = {"bufferDeviceAddress"};
    CHECK(kind_of(devices, "") == Error::Kind::DeviceNotFound);
    CHECK(kind_of({}, "") == Error::Kind::DeviceNotFound);
}

TEST_CASE("formatting helpers") {
    Uuid uuid{};
    for (std::size_t i = 0; i < uuid.size(); ++i) uuid[i] = static_cast<std::uint8_t>(i);
    CHECK(uuid_string(uuid) == "00010203-0405-0607-0809-0a0b0c0d0e0f");
    CHECK(api_version_string(VK_MAKE_API_VERSION(0, 1, 3, 239)) == "1.3.239");
}

TEST_CASE("the real machine has a usable device with a compute queue") {
    const auto devices = batchsim::device::list_vulkan_devices();
    REQUIRE_FALSE(devices.empty());
    const auto& chosen = select_physical_device(devices, "");
    CHECK(chosen.usable());
    CHECK(chosen.compute_queue_family >= 0);
}
