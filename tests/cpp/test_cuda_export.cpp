// The CUDA export path end to end, without Python. Skipped where CUDA is unavailable.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "core/check.hpp"
#include "device/cuda_interop.hpp"
#include "diag/pattern_fill.hpp"

using namespace batchsim;
using namespace batchsim::device;

TEST_CASE("a kernel's output is read back through CUDA") {
    if (!cuda::driver() || cuda::list_devices().empty()) {
        WARN("CUDA unavailable: skipped");
        return;
    }
    auto context = std::make_shared<GpuContext>(
        GpuContext::Config{.validation = true, .export_target = ExportTarget::Cuda});
    REQUIRE(context->exports_cuda());
    PatternFill fill(context);
    const std::int64_t count = 100003;
    auto tensor = PersistentTensor::create(context, {count}, DType::Float32);
    CHECK(tensor->dl_device().device_type == kDLCUDA);

    std::vector<float> host(static_cast<std::size_t>(count));
    std::random_device entropy;
    constexpr std::uintptr_t kLegacyStream = 1;
    for (int round = 0; round < 20; ++round) {
        const std::uint32_t seed = entropy();
        fill.run(*tensor, seed, kLegacyStream);
        cuda::ContextScope scope(context->cuda_device());
        // cuMemcpyDtoH runs on the legacy stream, after the semaphore wait run() enqueued.
        CU_CHECK(cuda::driver()->cuMemcpyDtoH(host.data(), tensor->data_ptr(), tensor->nbytes()));
        for (std::uint32_t i = 0; i < count; i += 7)
            REQUIRE(host[i] == PatternFill::expected(i, seed));
    }
}
