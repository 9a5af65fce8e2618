// GPU copies into PersistentTensors, for the layers above device/: host bytes through a
// host-visible staging buffer (StagingBuffer) and rows of one tensor into another's
// (copy_rows). env/ records its step's copies with these, so it reaches Vulkan only through
// device/ (docs/architecture.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include <vulkan/vulkan_core.h>

#include "device/gpu_context.hpp"
#include "device/tensor.hpp"
#include "vk/buffer.hpp"

namespace batchsim::device {

// Bytes [from_offset, from_offset + bytes) of a source copied to `to_offset` of a target.
struct CopyRegion {
    std::size_t from_offset = 0;
    std::size_t to_offset = 0;
    std::size_t bytes = 0;
};

// A host-visible buffer the CPU fills and command buffers copy from (TRANSFER_SRC).
class StagingBuffer {
public:
    // Throws what vk::create_buffer throws.
    StagingBuffer(std::shared_ptr<GpuContext> context, std::size_t bytes);
    ~StagingBuffer();  // waits for the GPU: a submission may still copy from it
    StagingBuffer(const StagingBuffer&) = delete;
    StagingBuffer& operator=(const StagingBuffer&) = delete;

    // The mapped bytes; no submission may be reading those the caller writes.
    [[nodiscard]] std::byte* data() const { return static_cast<std::byte*>(buffer_.mapped); }
    [[nodiscard]] std::size_t size() const { return static_cast<std::size_t>(buffer_.size); }

    // Records the copies of `regions` of this buffer into `to`, a tensor with a buffer of its
    // own (not a view).
    void record_copy(VkCommandBuffer commands, const PersistentTensor& to,
                     std::span<const CopyRegion> regions) const;

private:
    std::shared_ptr<GpuContext> context_;
    vk::Buffer buffer_;
};

// Rows [first, first + count) of a tensor's first dimension.
struct Rows {
    std::size_t first = 0;
    std::size_t count = 0;
};

// One tensor copied into another of its shape and type (neither a view).
struct TensorCopy {
    const PersistentTensor* from = nullptr;
    const PersistentTensor* to = nullptr;
};

// Copies `rows` of each copy's `from` into the same rows of its `to`, in one submission on
// `context` (submitted as GpuContext::submit does for `cuda_stream`): after the writes of
// every earlier submission, and before any later one reads or overwrites them.
void copy_rows(GpuContext& context, std::span<const TensorCopy> copies, Rows rows,
               std::uintptr_t cuda_stream);

}  // namespace batchsim::device
