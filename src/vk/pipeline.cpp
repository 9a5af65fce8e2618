#include "vk/pipeline.hpp"

#include "core/check.hpp"

namespace batchsim::vk {
namespace {

VkPipelineLayout create_layout(const Device& device, std::uint32_t push_constant_size,
                               VkDescriptorSetLayout set_layout) {
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_constant_size};
    VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    info.setLayoutCount = set_layout != VK_NULL_HANDLE ? 1 : 0;
    info.pSetLayouts = &set_layout;
    info.pushConstantRangeCount = push_constant_size > 0 ? 1 : 0;
    info.pPushConstantRanges = &range;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VK_CHECK(vkCreatePipelineLayout(device.handle, &info, nullptr, &layout));
    return layout;
}

void bind_and_push(VkCommandBuffer commands, const ComputePipeline& pipeline,
                   const void* constants) {
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle);
    if (pipeline.push_constant_size > 0)
        vkCmdPushConstants(commands, pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                           pipeline.push_constant_size, constants);
}

}  // namespace

VkShaderModule create_shader_module(const Device& device, std::span<const std::uint32_t> spirv) {
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = spirv.size_bytes();
    info.pCode = spirv.data();
    VkShaderModule module = VK_NULL_HANDLE;
    VK_CHECK(vkCreateShaderModule(device.handle, &info, nullptr, &module));
    return module;
}

ComputePipeline create_compute_pipeline(const Device& device, std::span<const std::uint32_t> spirv,
                                        std::uint32_t push_constant_size,
                                        VkDescriptorSetLayout set_layout) {
    ComputePipeline pipeline;
    pipeline.push_constant_size = push_constant_size;
    pipeline.layout = create_layout(device, push_constant_size, set_layout);
    VkShaderModule module = VK_NULL_HANDLE;
    try {
        module = create_shader_module(device, spirv);
        VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
        info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
        info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        info.stage.module = module;
        info.stage.pName = "main";
        info.layout = pipeline.layout;
        VK_CHECK(vkCreateComputePipelines(device.handle, VK_NULL_HANDLE, 1, &info, nullptr,
                                          &pipeline.handle));
    } catch (...) {
        if (module != VK_NULL_HANDLE) vkDestroyShaderModule(device.handle, module, nullptr);
        destroy_compute_pipeline(device, pipeline);
        throw;
    }
    vkDestroyShaderModule(device.handle, module, nullptr);  // the pipeline keeps the code
    return pipeline;
}

void destroy_compute_pipeline(const Device& device, ComputePipeline& pipeline) {
    if (pipeline.handle != VK_NULL_HANDLE)
        vkDestroyPipeline(device.handle, pipeline.handle, nullptr);
    if (pipeline.layout != VK_NULL_HANDLE)
        vkDestroyPipelineLayout(device.handle, pipeline.layout, nullptr);
    pipeline = ComputePipeline{};
}

void dispatch(VkCommandBuffer commands, const ComputePipeline& pipeline, const void* constants,
              std::uint32_t group_count) {
    dispatch(commands, pipeline, constants, GroupCount{.x = group_count});
}

void dispatch(VkCommandBuffer commands, const ComputePipeline& pipeline, const void* constants,
              GroupCount groups) {
    bind_and_push(commands, pipeline, constants);
    vkCmdDispatch(commands, groups.x, groups.y, groups.z);
}

void dispatch_indirect(VkCommandBuffer commands, const ComputePipeline& pipeline,
                       const void* constants, VkBuffer buffer, VkDeviceSize offset) {
    bind_and_push(commands, pipeline, constants);
    vkCmdDispatchIndirect(commands, buffer, offset);
}

}  // namespace batchsim::vk
