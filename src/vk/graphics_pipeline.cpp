#include "vk/graphics_pipeline.hpp"

#include <array>

#include "core/check.hpp"
#include "vk/pipeline.hpp"

namespace batchsim::vk {
namespace {

VkPipelineLayout pipeline_layout(const Device& device, const GraphicsPipelineDesc& desc) {
    const VkPushConstantRange range{VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                                    desc.push_constant_size};
    VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    info.pushConstantRangeCount = desc.push_constant_size > 0 ? 1 : 0;
    info.pPushConstantRanges = &range;
    info.setLayoutCount = desc.set_layout != VK_NULL_HANDLE ? 1 : 0;
    info.pSetLayouts = &desc.set_layout;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VK_CHECK(vkCreatePipelineLayout(device.handle, &info, nullptr, &layout));
    return layout;
}

// The fixed-function state: triangle lists, no blending, depth test and write.
struct FixedState {
    VkPipelineVertexInputStateCreateInfo vertex_input{
        VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo assembly{
        VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    VkPipelineViewportStateCreateInfo viewport{
        VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    VkPipelineRasterizationStateCreateInfo raster{
        VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    VkPipelineMultisampleStateCreateInfo multisample{
        VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    VkPipelineDepthStencilStateCreateInfo depth{
        VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    std::vector<VkPipelineColorBlendAttachmentState> blend_attachments;
    VkPipelineColorBlendStateCreateInfo blend{
        VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    std::array<VkDynamicState, 2> dynamic_states{VK_DYNAMIC_STATE_VIEWPORT,
                                                 VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dynamic{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};

    explicit FixedState(const GraphicsPipelineDesc& desc) {
        assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
        viewport.viewportCount = 1;
        viewport.scissorCount = 1;
        raster.polygonMode = VK_POLYGON_MODE_FILL;
        raster.cullMode = desc.cull_mode;
        raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
        raster.lineWidth = 1.0f;
        multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
        depth.depthTestEnable = desc.depth_format != VK_FORMAT_UNDEFINED;
        depth.depthWriteEnable = depth.depthTestEnable;
        depth.depthCompareOp = desc.depth_compare;
        VkPipelineColorBlendAttachmentState attachment{};
        attachment.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                                    VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
        blend_attachments.assign(desc.color_formats.size(), attachment);
        blend.attachmentCount = static_cast<std::uint32_t>(blend_attachments.size());
        blend.pAttachments = blend_attachments.data();
        dynamic.dynamicStateCount = static_cast<std::uint32_t>(dynamic_states.size());
        dynamic.pDynamicStates = dynamic_states.data();
    }
};

}  // namespace

GraphicsPipeline create_graphics_pipeline(const Device& device, const GraphicsPipelineDesc& desc) {
    BATCHSIM_CHECK(device.features.dynamic_rendering, Unsupported,
                   "the raster renderer needs dynamicRendering (VK_KHR_dynamic_rendering)");
    GraphicsPipeline pipeline;
    std::array<VkShaderModule, 2> modules{VK_NULL_HANDLE, VK_NULL_HANDLE};
    try {
        pipeline.layout = pipeline_layout(device, desc);
        modules = {create_shader_module(device, desc.vertex_spirv),
                   create_shader_module(device, desc.fragment_spirv)};
        std::array<VkPipelineShaderStageCreateInfo, 2> stages{};
        for (std::size_t i = 0; i < stages.size(); ++i) {
            stages[i] = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
            stages[i].stage = i == 0 ? VK_SHADER_STAGE_VERTEX_BIT : VK_SHADER_STAGE_FRAGMENT_BIT;
            stages[i].module = modules[i];
            stages[i].pName = "main";
        }
        const FixedState state(desc);
        VkPipelineRenderingCreateInfoKHR rendering{
            VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO_KHR};
        rendering.colorAttachmentCount = static_cast<std::uint32_t>(desc.color_formats.size());
        rendering.pColorAttachmentFormats = desc.color_formats.data();
        rendering.depthAttachmentFormat = desc.depth_format;
        VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
        info.pNext = &rendering;
        info.stageCount = static_cast<std::uint32_t>(stages.size());
        info.pStages = stages.data();
        info.pVertexInputState = &state.vertex_input;
        info.pInputAssemblyState = &state.assembly;
        info.pViewportState = &state.viewport;
        info.pRasterizationState = &state.raster;
        info.pMultisampleState = &state.multisample;
        info.pDepthStencilState = &state.depth;
        info.pColorBlendState = &state.blend;
        info.pDynamicState = &state.dynamic;
        info.layout = pipeline.layout;
        VK_CHECK(vkCreateGraphicsPipelines(device.handle, VK_NULL_HANDLE, 1, &info, nullptr,
                                           &pipeline.handle));
    } catch (...) {
        for (VkShaderModule module : modules)
            if (module != VK_NULL_HANDLE) vkDestroyShaderModule(device.handle, module, nullptr);
        destroy_graphics_pipeline(device, pipeline);
        throw;
    }
    for (VkShaderModule module : modules) vkDestroyShaderModule(device.handle, module, nullptr);
    return pipeline;
}

void destroy_graphics_pipeline(const Device& device, GraphicsPipeline& pipeline) {
    if (pipeline.handle != VK_NULL_HANDLE)
        vkDestroyPipeline(device.handle, pipeline.handle, nullptr);
    if (pipeline.layout != VK_NULL_HANDLE)
        vkDestroyPipelineLayout(device.handle, pipeline.layout, nullptr);
    pipeline = GraphicsPipeline{};
}

}  // namespace batchsim::vk
