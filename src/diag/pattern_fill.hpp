// PatternFill: a compute kernel that writes a reproducible pattern into a float32 tensor
// (shaders/fill_pattern.comp.glsl). `batchsim doctor` and the tests use it to prove the
// whole path: pipeline, dispatch, synchronisation and zero-copy export.
#pragma once

#include <cstdint>
#include <memory>

#include "device/gpu_context.hpp"
#include "device/tensor.hpp"
#include "vk/pipeline.hpp"

namespace batchsim {

class PatternFill {
public:
    explicit PatternFill(std::shared_ptr<device::GpuContext> context);
    ~PatternFill();
    PatternFill(const PatternFill&) = delete;
    PatternFill& operator=(const PatternFill&) = delete;

    // Writes value[i] = pattern(i, seed) into every element of `tensor` (float32, created
    // on this context). `cuda_stream` orders the write after the consumer's earlier reads
    // and before its later work (see GpuContext::submit).
    void run(device::PersistentTensor& tensor, std::uint32_t seed, std::uintptr_t cuda_stream);

    // The value the kernel writes at `index` for `seed` (the CPU reference).
    static float expected(std::uint32_t index, std::uint32_t seed);

private:
    std::shared_ptr<device::GpuContext> context_;
    vk::ComputePipeline pipeline_;
};

}  // namespace batchsim
