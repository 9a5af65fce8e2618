#include <array>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "device/copies.hpp"

using namespace batchsim::device;

namespace {
std::shared_ptr<GpuContext> cpu_context() {
    return std::make_shared<GpuContext>(
        GpuContext::Config{.validation = true, .export_target = ExportTarget::Cpu});
}

template <typename T>
T* host_values(const PersistentTensor& tensor) {  // CPU export: the buffer is host memory
    return reinterpret_cast<T*>(tensor.data_ptr());
}
}  // namespace

TEST_CASE("copy_rows copies the given rows of each tensor and leaves the others") {
    auto context = cpu_context();
    auto depth = PersistentTensor::create(context, {4, 3}, DType::Int32);
    auto depth_copy = PersistentTensor::create(context, {4, 3}, DType::Int32);
    auto rgb = PersistentTensor::create(context, {4, 2}, DType::UInt8);
    auto rgb_copy = PersistentTensor::create(context, {4, 2}, DType::UInt8);
    for (int i = 0; i < 12; ++i) {
        host_values<std::int32_t>(*depth)[i] = 100 + i;
        host_values<std::int32_t>(*depth_copy)[i] = -1;
    }
    for (int i = 0; i < 8; ++i) {
        host_values<std::uint8_t>(*rgb)[i] = static_cast<std::uint8_t>(10 + i);
        host_values<std::uint8_t>(*rgb_copy)[i] = 0;
    }
    const std::vector<TensorCopy> copies{{depth.get(), depth_copy.get()},
                                         {rgb.get(), rgb_copy.get()}};
    copy_rows(*context, copies, {.first = 1, .count = 2}, 0);  // returns once the GPU is done

    for (int i = 0; i < 12; ++i) {
        const bool copied = i / 3 == 1 || i / 3 == 2;
        CHECK(host_values<std::int32_t>(*depth_copy)[i] == (copied ? 100 + i : -1));
    }
    for (int i = 0; i < 8; ++i) {
        const bool copied = i / 2 == 1 || i / 2 == 2;
        CHECK(host_values<std::uint8_t>(*rgb_copy)[i] == (copied ? 10 + i : 0));
    }
    CHECK(context->validation_messages() == 0);
}

TEST_CASE("a staging buffer's regions land at their offsets in a tensor") {
    auto context = cpu_context();
    StagingBuffer staging(context, 64);
    REQUIRE(staging.size() == 64);
    for (int i = 0; i < 64; ++i) staging.data()[i] = static_cast<std::byte>(i);
    auto tensor = PersistentTensor::create(context, {64}, DType::UInt8);
    std::uint8_t* out = host_values<std::uint8_t>(*tensor);
    for (int i = 0; i < 64; ++i) out[i] = 0xFF;

    const std::array regions{CopyRegion{.from_offset = 0, .to_offset = 16, .bytes = 8},
                             CopyRegion{.from_offset = 40, .to_offset = 48, .bytes = 4}};
    auto recording = context->begin();
    staging.record_copy(recording.commands(), *tensor, regions);
    context->submit(recording, 0);

    for (int i = 0; i < 64; ++i) {
        int expected = 0xFF;
        if (i >= 16 && i < 24) expected = i - 16;
        if (i >= 48 && i < 52) expected = 40 + (i - 48);
        CHECK(int{out[i]} == expected);
    }
    CHECK(context->validation_messages() == 0);
}
