// PersistentTensor: a GPU buffer created once and exported (any number of times) as a
// DLPack tensor that aliases it: kDLCPU for host-visible memory, kDLCUDA for device memory
// imported into CUDA. Every exported DLManagedTensor keeps the tensor, and through it the
// GpuContext, alive until its consumer calls the deleter.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <dlpack/dlpack.h>

#include "device/cuda_interop.hpp"
#include "device/gpu_context.hpp"
#include "vk/buffer.hpp"

namespace batchsim::device {

enum class DType { Float32, Float16, Int32, Int64, UInt8, Bool };

std::string_view dtype_name(DType dtype);  // "float32", ...
DType parse_dtype(std::string_view name);  // throws InvalidArgument
std::size_t dtype_size(DType dtype);
DLDataType dlpack_dtype(DType dtype);

class PersistentTensor : public std::enable_shared_from_this<PersistentTensor> {
public:
    // Validates the shape (non-empty, every extent > 0, total below 2^40 bytes).
    static std::shared_ptr<PersistentTensor> create(std::shared_ptr<GpuContext> context,
                                                    std::vector<std::int64_t> shape, DType dtype);
    // A tensor of `shape` and `dtype` over this one's bytes from `byte_offset` (a field of a
    // packed block), keeping this one alive. It has no Vulkan buffer of its own: copies
    // into it go to this one, at the offset. Throws Error(InvalidArgument) past the end or
    // for an offset that is not a multiple of 16.
    [[nodiscard]] std::shared_ptr<PersistentTensor> view(std::size_t byte_offset,
                                                         std::vector<std::int64_t> shape,
                                                         DType dtype);
    ~PersistentTensor();
    PersistentTensor(const PersistentTensor&) = delete;
    PersistentTensor& operator=(const PersistentTensor&) = delete;

    // A new DLManagedTensor aliasing this buffer (same data pointer every time).
    [[nodiscard]] DLManagedTensor* export_dlpack();
    [[nodiscard]] DLDevice dl_device() const;
    [[nodiscard]] std::string device_name() const;  // "cpu" or "cuda:N", as torch names it

    [[nodiscard]] const std::vector<std::int64_t>& shape() const { return shape_; }
    [[nodiscard]] DType dtype() const { return dtype_; }
    [[nodiscard]] std::int64_t numel() const;
    [[nodiscard]] std::size_t nbytes() const { return static_cast<std::size_t>(buffer_.size); }
    [[nodiscard]] std::uintptr_t data_ptr() const;  // what DLPack consumers see
    [[nodiscard]] VkDeviceAddress device_address() const {
        return viewed_ ? viewed_->device_address() + view_offset_ : buffer_.address;
    }
    // The Vulkan buffer, for copies into it (TRANSFER_DST) by renderers; null for a view.
    [[nodiscard]] VkBuffer vk_buffer() const { return buffer_.handle; }
    [[nodiscard]] const std::shared_ptr<GpuContext>& context() const { return context_; }

private:
    PersistentTensor(std::shared_ptr<GpuContext> context, std::vector<std::int64_t> shape,
                     DType dtype);

    std::shared_ptr<GpuContext> context_;
    std::vector<std::int64_t> shape_;
    DType dtype_;
    vk::Buffer buffer_;
    cuda::ImportedBuffer cuda_buffer_;
    std::shared_ptr<PersistentTensor> viewed_;  // a view's block; null otherwise
    std::size_t view_offset_ = 0;
};

}  // namespace batchsim::device
