// Graphics pipelines for dynamic rendering (no render pass objects). Shaders pull vertices
// through buffer device addresses, so there is no vertex input state; resources other than
// buffers come from one descriptor set layout.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "vk/device.hpp"

namespace batchsim::vk {

struct GraphicsPipelineDesc {
    std::span<const std::uint32_t> vertex_spirv;
    std::span<const std::uint32_t> fragment_spirv;
    std::vector<VkFormat> color_formats;
    VkFormat depth_format = VK_FORMAT_UNDEFINED;
    VkCompareOp depth_compare = VK_COMPARE_OP_GREATER;  // reversed depth
    VkCullModeFlags cull_mode = VK_CULL_MODE_NONE;
    std::uint32_t push_constant_size = 0;               // visible to both stages
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;  // optional
};

struct GraphicsPipeline {
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline handle = VK_NULL_HANDLE;
};

// Viewport and scissor are dynamic state. Throws Unsupported without dynamic rendering.
GraphicsPipeline create_graphics_pipeline(const Device& device, const GraphicsPipelineDesc& desc);
void destroy_graphics_pipeline(const Device& device, GraphicsPipeline& pipeline);

}  // namespace batchsim::vk
