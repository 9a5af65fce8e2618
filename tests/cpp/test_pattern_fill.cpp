#include <catch2/catch.hpp>

#include <random>

#include "core/check.hpp"
#include "diag/pattern_fill.hpp"

using namespace batchsim;

TEST_CASE("the compute kernel writes the pattern the CPU reference predicts") {
    auto context = std::make_shared<device::GpuContext>(
        device::GpuContext::Config{.validation = true, .export_target = device::ExportTarget::Cpu});
    PatternFill fill(context);
    std::random_device entropy;
    const auto count = GENERATE(1, 257, 70000);
    auto tensor = device::PersistentTensor::create(context, {count}, device::DType::Float32);
    const auto* values = reinterpret_cast<const float*>(tensor->data_ptr());

    // More runs than the command ring has buffers, so slots are reused.
    for (int run = 0; run < 9; ++run) {
        const std::uint32_t seed = entropy();
        fill.run(*tensor, seed, 0);
        for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(count); i += 1 + i / 3)
            REQUIRE(values[i] == PatternFill::expected(i, seed));
    }
}

TEST_CASE("the CPU reference follows the documented formula") {
    CHECK(PatternFill::expected(0, 0) == 0.0f);
    CHECK(PatternFill::expected(1, 0) == 131.0f);
    CHECK(PatternFill::expected(0, 1) == 7919.0f);
    // (2^32 - 1) * 131 wraps modulo 2^32 before the modulus.
    const std::uint32_t wrapped = 0xffffffffu * 131u;
    CHECK(PatternFill::expected(0xffffffffu, 0) == static_cast<float>(wrapped % 1000003u));
}

TEST_CASE("the kernel rejects other dtypes") {
    auto context = std::make_shared<device::GpuContext>(
        device::GpuContext::Config{.validation = true, .export_target = device::ExportTarget::Cpu});
    PatternFill fill(context);
    auto tensor = device::PersistentTensor::create(context, {8}, device::DType::UInt8);
    CHECK_THROWS_WITH(fill.run(*tensor, 1, 0), Catch::Contains("expected a float32 tensor"));
}
