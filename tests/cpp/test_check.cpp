#include <catch2/catch.hpp>

#include "core/check.hpp"

using batchsim::Error;

TEST_CASE("VK_CHECK names the result, the expression and the location") {
    auto failing = [] { return VK_ERROR_OUT_OF_DEVICE_MEMORY; };
    try {
        VK_CHECK(failing());
        FAIL("VK_CHECK did not throw");
    } catch (const Error& error) {
        const std::string message = error.what();
        CHECK(error.kind() == Error::Kind::Vulkan);
        CHECK_THAT(message, Catch::Contains("VK_ERROR_OUT_OF_DEVICE_MEMORY (-2)"));
        CHECK_THAT(message, Catch::Contains("failing()"));
        CHECK_THAT(message, Catch::Contains("test_check.cpp:"));
    }
    CHECK_NOTHROW([] { VK_CHECK(VK_SUCCESS); }());
}

TEST_CASE("BATCHSIM_CHECK throws the requested kind only when the condition fails") {
    CHECK_NOTHROW([] { BATCHSIM_CHECK(1 + 1 == 2, InvalidArgument, "never"); }());
    try {
        BATCHSIM_CHECK(false, DeviceNotFound, "no such device");
        FAIL("BATCHSIM_CHECK did not throw");
    } catch (const Error& error) {
        CHECK(error.kind() == Error::Kind::DeviceNotFound);
        CHECK(std::string(error.what()) == "no such device");
    }
    // Internal errors are bugs: they carry the source location for the report.
    try {
        BATCHSIM_CHECK(false, Internal, "broken invariant");
    } catch (const Error& error) {
        CHECK_THAT(error.what(), Catch::Contains("broken invariant (test_check.cpp:"));
    }
}

TEST_CASE("vk_result_name knows common codes and survives unknown ones") {
    CHECK(batchsim::vk_result_name(VK_ERROR_DEVICE_LOST) == "VK_ERROR_DEVICE_LOST");
    CHECK(batchsim::vk_result_name(static_cast<VkResult>(-123456)) == "VkResult(unknown)");
}
