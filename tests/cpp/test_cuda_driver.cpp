#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "device/cuda_driver.hpp"
#include "device/cuda_event.hpp"

using namespace batchsim::device::cuda;

TEST_CASE("the CUDA driver either loads with devices or says why not") {
    std::string why_not;
    const Driver* d = driver(&why_not);
    if (d) {
        CHECK(d->version >= 11000);
        CHECK(why_not.empty());
        for (const auto& device : list_devices()) CHECK_FALSE(device.name.empty());
    } else {
        CHECK_FALSE(why_not.empty());
        CHECK(list_devices().empty());
    }
}

TEST_CASE("CU_CHECK turns failures into batchsim errors") {
    CHECK_NOTHROW(CU_CHECK(CUDA_SUCCESS));
    try {
        CU_CHECK(100);  // CUDA_ERROR_NO_DEVICE
        FAIL("CU_CHECK did not throw");
    } catch (const batchsim::Error& error) {
        CHECK(error.kind() == batchsim::Error::Kind::Cuda);
        CHECK_THAT(error.what(), Catch::Contains("(100"));
        CHECK_THAT(error.what(), Catch::Contains("test_cuda_driver.cpp:"));
    }
}

TEST_CASE("waiting on a CUDA event without a driver says why not") {
    if (driver() != nullptr) return;  // the GPU tests wait on real events (test_env_cuda.py)
    try {
        synchronize_event(0, 0);
        FAIL("synchronize_event did not throw");
    } catch (const batchsim::Error& error) {
        CHECK(error.kind() == batchsim::Error::Kind::Unsupported);
        CHECK_THAT(error.what(), Catch::StartsWith("CUDA is unavailable: "));
    }
}
