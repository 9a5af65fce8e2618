// Compute pipelines. Shaders reach buffers through device addresses passed as push
// constants; only sampled textures need a descriptor set (set 0, optional).
#pragma once

#include <cstdint>
#include <span>

#include <vulkan/vulkan_core.h>

#include "vk/device.hpp"

namespace batchsim::vk {

// A shader module of SPIR-V words (pipelines keep the code; destroy it after creating them).
VkShaderModule create_shader_module(const Device& device, std::span<const std::uint32_t> spirv);

struct ComputePipeline {
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline handle = VK_NULL_HANDLE;
    std::uint32_t push_constant_size = 0;
};

ComputePipeline create_compute_pipeline(const Device& device, std::span<const std::uint32_t> spirv,
                                        std::uint32_t push_constant_size,
                                        VkDescriptorSetLayout set_layout = VK_NULL_HANDLE);
void destroy_compute_pipeline(const Device& device, ComputePipeline& pipeline);

// Binds the pipeline, pushes `constants` (push_constant_size bytes) and dispatches.
void dispatch(VkCommandBuffer commands, const ComputePipeline& pipeline, const void* constants,
              std::uint32_t group_count);

// Workgroups along x, y and z (each at most the device's maxComputeWorkGroupCount).
struct GroupCount {
    std::uint32_t x = 1, y = 1, z = 1;
};
void dispatch(VkCommandBuffer commands, const ComputePipeline& pipeline, const void* constants,
              GroupCount groups);

// As dispatch, with the workgroup counts read on the GPU from the VkDispatchIndirectCommand
// at `offset` in `buffer` (made with VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT).
void dispatch_indirect(VkCommandBuffer commands, const ComputePipeline& pipeline,
                       const void* constants, VkBuffer buffer, VkDeviceSize offset);

}  // namespace batchsim::vk
