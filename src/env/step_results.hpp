// StepResults: what a step reports per environment (pointgoal, reward, flags, metrics, ids)
// as persistent tensors on the context's device, carried by the render submission that
// carries the step's views. The step copies each batch's rows of the host results into a
// host-visible staging buffer once the batch's previous render is done (stage), and the
// batch's command buffer, recorded once, copies them into the tensors (record_copy). The
// tensors are views of one block laid out as the staging buffer, so a batch of every
// environment is one copy (a copy per result measured 1.5% of an H100's step). So
// the results reach the consumer's stream together with the depth, without a transfer of
// their own: the env staged and copied them from Python before, 0.22 ms per step at
// N = 4,096 on an H100 host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "device/copies.hpp"
#include "device/gpu_context.hpp"
#include "device/tensor.hpp"
#include "render/batch_renderer.hpp"

namespace batchsim::env {

// One result: N rows of `columns` values of `dtype` at `rows` (host memory that outlives
// every stage() call). Bool results are read as one byte each, 0 or 1.
struct ResultSource {
    std::string name;
    device::DType dtype = device::DType::Float32;
    std::int64_t columns = 1;  // the tensor is [N] for 1, [N, columns] otherwise
    const void* rows = nullptr;
};

class StepResults {
public:
    // Throws what PersistentTensor::create and device::StagingBuffer throw.
    StepResults(std::shared_ptr<device::GpuContext> context, std::int64_t num_envs,
                const std::vector<ResultSource>& sources);
    StepResults(const StepResults&) = delete;
    StepResults& operator=(const StepResults&) = delete;

    // Copies the rows of `envs` into the staging buffer; no submission may be reading them.
    void stage(render::ViewRange envs);
    // Records the copy of the staged rows of `envs` into the tensors.
    void record_copy(VkCommandBuffer commands, render::ViewRange envs) const;

    struct Result {
        std::string name;
        std::shared_ptr<device::PersistentTensor> tensor;
    };
    [[nodiscard]] const std::vector<Result>& results() const { return results_; }

private:
    struct Layout {
        const std::byte* rows;
        std::size_t row_bytes;
        std::size_t staged_offset;  // of row 0 in the staging buffer
    };

    std::shared_ptr<device::GpuContext> context_;
    std::int64_t num_envs_;
    std::shared_ptr<device::PersistentTensor> block_;  // every result, as staged
    std::vector<Result> results_;                      // views of the block
    std::vector<Layout> layouts_;                      // by result
    std::unique_ptr<device::StagingBuffer> staging_;
};

}  // namespace batchsim::env
