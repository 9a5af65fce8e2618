#include "device/tensor.hpp"

#include <array>
#include <utility>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::device {
namespace {

struct DTypeEntry {
    DType dtype;
    std::string_view name;
    DLDataType dl;
};

// DLPack 0.8's kDLBool: one byte per value, 0 or 1. Debian's dlpack 0.6 headers lack the
// name; torch and numpy read the code.
constexpr std::uint8_t kDLBoolCode = 6;

constexpr std::array kDTypes = {
    DTypeEntry{DType::Float32, "float32", {kDLFloat, 32, 1}},
    DTypeEntry{DType::Float16, "float16", {kDLFloat, 16, 1}},
    DTypeEntry{DType::Int32, "int32", {kDLInt, 32, 1}},
    DTypeEntry{DType::Int64, "int64", {kDLInt, 64, 1}},
    DTypeEntry{DType::UInt8, "uint8", {kDLUInt, 8, 1}},
    DTypeEntry{DType::Bool, "bool", {kDLBoolCode, 8, 1}},
};

const DTypeEntry& entry(DType dtype) {
    for (const auto& e : kDTypes)
        if (e.dtype == dtype) return e;
    BATCHSIM_CHECK(false, Internal, "unknown dtype");
    return kDTypes[0];
}

// Caps one tensor at 1 TiB: larger requests are mistakes, and the cap keeps the byte count
// far from overflow.
constexpr std::int64_t kMaxTensorBytes = std::int64_t{1} << 40;

std::int64_t checked_nbytes(const std::vector<std::int64_t>& shape, DType dtype) {
    BATCHSIM_CHECK(!shape.empty(), InvalidArgument,
                   "tensor shape must have at least one dimension");
    std::int64_t bytes = static_cast<std::int64_t>(dtype_size(dtype));
    for (const std::int64_t extent : shape) {
        BATCHSIM_CHECK(extent > 0, InvalidArgument,
                       str("tensor extents must be positive, got shape [", join_shape(shape), "]"));
        BATCHSIM_CHECK(bytes <= kMaxTensorBytes / extent, InvalidArgument,
                       str("tensor of shape [", join_shape(shape), "] exceeds 1 TiB"));
        bytes *= extent;
    }
    return bytes;
}

// Deleter context of one exported DLManagedTensor.
struct ExportHolder {
    std::shared_ptr<PersistentTensor> owner;
    std::vector<std::int64_t> shape;  // DLTensor points into this
};

void delete_exported(DLManagedTensor* managed) {
    delete static_cast<ExportHolder*>(managed->manager_ctx);
    delete managed;
}

}  // namespace

std::string_view dtype_name(DType dtype) {
    return entry(dtype).name;
}
DLDataType dlpack_dtype(DType dtype) {
    return entry(dtype).dl;
}
std::size_t dtype_size(DType dtype) {
    return entry(dtype).dl.bits / 8u;
}

DType parse_dtype(std::string_view name) {
    std::vector<std::string_view> known;
    for (const auto& e : kDTypes) {
        if (e.name == name) return e.dtype;
        known.push_back(e.name);
    }
    BATCHSIM_CHECK(false, InvalidArgument,
                   str("unsupported dtype '", name, "': expected one of ", join(known)));
    return DType::Float32;
}

PersistentTensor::PersistentTensor(std::shared_ptr<GpuContext> context,
                                   std::vector<std::int64_t> shape, DType dtype)
    : context_(std::move(context)), shape_(std::move(shape)), dtype_(dtype) {}

std::shared_ptr<PersistentTensor> PersistentTensor::create(std::shared_ptr<GpuContext> context,
                                                           std::vector<std::int64_t> shape,
                                                           DType dtype) {
    BATCHSIM_CHECK(context != nullptr, InvalidArgument, "a tensor needs a GpuContext");
    const std::int64_t bytes = checked_nbytes(shape, dtype);
    std::shared_ptr<PersistentTensor> tensor(
        new PersistentTensor(std::move(context), std::move(shape), dtype));
    const bool cuda = tensor->context_->exports_cuda();
    const auto& device = tensor->context_->device();
    tensor->buffer_ = vk::create_buffer(
        device,
        {.size = static_cast<VkDeviceSize>(bytes),
         .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                  VK_BUFFER_USAGE_TRANSFER_DST_BIT,
         .location = cuda ? vk::MemoryLocation::DeviceLocal : vk::MemoryLocation::HostVisible,
         .exportable = cuda});
    if (cuda)  // the destructor releases the Vulkan buffer if this throws
        tensor->cuda_buffer_ =
            cuda::import_buffer(tensor->context_->cuda_device(), device, tensor->buffer_);
    return tensor;
}

std::shared_ptr<PersistentTensor> PersistentTensor::view(std::size_t byte_offset,
                                                         std::vector<std::int64_t> shape,
                                                         DType dtype) {
    const auto bytes = static_cast<std::size_t>(checked_nbytes(shape, dtype));
    BATCHSIM_CHECK(
        byte_offset % 16 == 0 && byte_offset <= nbytes() && bytes <= nbytes() - byte_offset,
        InvalidArgument,
        str("a view of ", bytes, " bytes at offset ", byte_offset, " does not fit a tensor of ",
            nbytes(), " bytes on 16-byte boundaries"));
    std::shared_ptr<PersistentTensor> out(new PersistentTensor(context_, std::move(shape), dtype));
    out->viewed_ = shared_from_this();
    out->view_offset_ = byte_offset;
    out->buffer_.size = bytes;
    return out;
}

PersistentTensor::~PersistentTensor() {
    if (viewed_) return;                                 // the block owns the memory
    if (!context_->settle("a tensor's memory")) return;  // a submission may still write it
    cuda::release_buffer(context_->cuda_device(), cuda_buffer_);
    vk::destroy_buffer(context_->device(), buffer_);
}

std::int64_t PersistentTensor::numel() const {
    std::int64_t count = 1;
    for (const auto extent : shape_) count *= extent;
    return count;
}

std::uintptr_t PersistentTensor::data_ptr() const {
    if (viewed_) return viewed_->data_ptr() + view_offset_;
    return context_->exports_cuda() ? static_cast<std::uintptr_t>(cuda_buffer_.pointer)
                                    : reinterpret_cast<std::uintptr_t>(buffer_.mapped);
}

DLDevice PersistentTensor::dl_device() const {
    if (context_->exports_cuda()) return {kDLCUDA, context_->cuda_ordinal()};
    return {kDLCPU, 0};
}

std::string PersistentTensor::device_name() const {
    return context_->exports_cuda() ? str("cuda:", context_->cuda_ordinal()) : "cpu";
}

DLManagedTensor* PersistentTensor::export_dlpack() {
    auto holder = std::make_unique<ExportHolder>(ExportHolder{shared_from_this(), shape_});
    auto managed = std::make_unique<DLManagedTensor>();
    DLTensor& t = managed->dl_tensor;
    t.data = reinterpret_cast<void*>(data_ptr());
    t.device = dl_device();
    t.ndim = static_cast<std::int32_t>(holder->shape.size());
    t.dtype = dlpack_dtype(dtype_);
    t.shape = holder->shape.data();
    t.strides = nullptr;  // compact row-major
    t.byte_offset = 0;
    managed->manager_ctx = holder.release();
    managed->deleter = delete_exported;
    return managed.release();
}

}  // namespace batchsim::device
