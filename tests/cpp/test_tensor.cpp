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
    for (auto dtype :
         {DType::Float32, DType::Float16, DType::Int32, DType::Int64, DType::UInt8, DType::Bool})
        CHECK(parse_dtype(dtype_name(dtype)) == dtype);
    CHECK(dtype_size(DType::Int64) == 8);
    CHECK(dtype_size(DType::Bool) == 1);
    CHECK(dlpack_dtype(DType::Bool).code == 6);  // DLPack 0.8's kDLBool
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

TEST_CASE("views alias their block at an offset and keep it alive") {
    auto context = cpu_context();
    auto block = PersistentTensor::create(context, {64}, DType::UInt8);
    auto floats = block->view(16, {2, 3}, DType::Float32);
    CHECK(floats->data_ptr() == block->data_ptr() + 16);
    CHECK(floats->nbytes() == 24);
    CHECK(floats->vk_buffer() == VK_NULL_HANDLE);  // copies go to the block
    DLManagedTensor* exported = floats->export_dlpack();
    CHECK(exported->dl_tensor.data == reinterpret_cast<void*>(block->data_ptr() + 16));
    CHECK(exported->dl_tensor.ndim == 2);
    std::weak_ptr<PersistentTensor> weak_block = block;
    block.reset();
    floats.reset();
    REQUIRE_FALSE(weak_block.expired());  // the export holds the view, the view the block
    static_cast<float*>(exported->dl_tensor.data)[5] = 1.0f;  // memory still valid
    exported->deleter(exported);
    CHECK(weak_block.expired());

    auto other = PersistentTensor::create(context, {64}, DType::UInt8);
    CHECK_THROWS_WITH(other->view(8, {2}, DType::Int32), Catch::Contains("16-byte boundaries"));
    CHECK_THROWS_WITH(other->view(48, {5}, DType::Float32), Catch::Contains("does not fit"));
    CHECK_THROWS_WITH(other->view(80, {1}, DType::UInt8), Catch::Contains("at offset 80"));
}
