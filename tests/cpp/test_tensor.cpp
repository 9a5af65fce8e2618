#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "device/tensor.hpp"

using namespace batchsim;
using namespace batchsim::device;

namespace {
std::shared_ptr<GpuContext> cpu_context() {
    return std::make_shared<GpuContext>(
        GpuContext::Config{.validation = true, .export_target = ExportTarget::Cpu});
}
}  // namespace

TEST_CASE("dtype names round-trip and unknown names are rejected") {
    for (auto dtype : {DType::Float32, DType::Float16, DType::Int32, DType::Int64, DType::UInt8})
        CHECK(parse_dtype(dtype_name(dtype)) == dtype);
    CHECK(dtype_size(DType::Int64) == 8);
    CHECK_THROWS_WITH(parse_dtype("bfloat16"), Catch::Contains("expected one of float32"));
}

TEST_CASE("exported DLPack tensors alias the buffer and keep their owners alive") {
    auto context = cpu_context();
    auto tensor = PersistentTensor::create(context, {3, 4}, DType::Int32);
    DLManagedTensor* first = tensor->export_dlpack();
    DLManagedTensor* second = tensor->export_dlpack();
    CHECK(first->dl_tensor.data == second->dl_tensor.data);
    CHECK(reinterpret_cast<std::uintptr_t>(first->dl_tensor.data) == tensor->data_ptr());
    CHECK(first->dl_tensor.ndim == 2);
    CHECK(first->dl_tensor.shape[0] == 3);
    CHECK(first->dl_tensor.shape[1] == 4);
    CHECK(first->dl_tensor.device.device_type == kDLCPU);
    CHECK(first->dl_tensor.dtype.code == kDLInt);
    CHECK(first->dl_tensor.dtype.bits == 32);

    std::weak_ptr<PersistentTensor> weak = tensor;
    tensor.reset();
    context.reset();
    REQUIRE_FALSE(weak.expired());                               // the exports hold it
    static_cast<std::int32_t*>(first->dl_tensor.data)[11] = 42;  // memory still valid
    first->deleter(first);
    CHECK_FALSE(weak.expired());
    second->deleter(second);
    CHECK(weak.expired());
}

TEST_CASE("bad shapes are rejected before any allocation") {
    auto context = cpu_context();
    CHECK_THROWS_WITH(PersistentTensor::create(context, {}, DType::Float32),
                      Catch::Contains("at least one dimension"));
    CHECK_THROWS_WITH(PersistentTensor::create(context, {2, -1}, DType::Float32),
                      Catch::Contains("got shape [2, -1]"));
    CHECK_THROWS_WITH(PersistentTensor::create(context, {1 << 21, 1 << 21}, DType::Float32),
                      Catch::Contains("exceeds 1 TiB"));
}
