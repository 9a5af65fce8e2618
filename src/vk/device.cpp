#include "vk/device.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::vk {
namespace {

struct QueueFamilies {
    std::uint32_t main = 0;
    bool main_has_graphics = false;
    std::uint32_t transfer = 0;
};

bool whole_texel_granularity(const VkQueueFamilyProperties& family) {
    const VkExtent3D g = family.minImageTransferGranularity;
    return g.width == 1 && g.height == 1 && g.depth == 1;
}

// Main: the first graphics+compute family (else the compute family). Transfer: the first
// transfer-only family that copies any texel rectangle (uploads split mips by rows).
QueueFamilies choose_queue_families(const PhysicalDeviceInfo& physical) {
    std::uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical.handle, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(physical.handle, &count, families.data());
    const VkQueueFlags graphics_compute = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    QueueFamilies chosen;
    chosen.main = static_cast<std::uint32_t>(physical.compute_queue_family);
    for (std::uint32_t i = 0; i < count; ++i) {
        if ((families[i].queueFlags & graphics_compute) == graphics_compute) {
            chosen.main = i;
            chosen.main_has_graphics = true;
            break;
        }
    }
    chosen.transfer = chosen.main;
    for (std::uint32_t i = 0; i < count; ++i) {
        const VkQueueFlags flags = families[i].queueFlags;
        if ((flags & VK_QUEUE_TRANSFER_BIT) && !(flags & graphics_compute) &&
            families[i].queueCount > 0 && whole_texel_granularity(families[i])) {
            chosen.transfer = i;
            break;
        }
    }
    return chosen;
}

bool has_extension(const std::vector<VkExtensionProperties>& extensions, const char* name) {
    return std::any_of(extensions.begin(), extensions.end(), [&](const VkExtensionProperties& e) {
        return std::strcmp(e.extensionName, name) == 0;
    });
}

std::vector<VkExtensionProperties> extension_properties(VkPhysicalDevice device) {
    std::uint32_t count = 0;
    VK_CHECK(vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr));
    std::vector<VkExtensionProperties> properties(count);
    VK_CHECK(vkEnumerateDeviceExtensionProperties(device, nullptr, &count, properties.data()));
    return properties;
}

// The feature structs of one query or enable, chained in the order Vulkan reads them.
struct FeatureChain {
    VkPhysicalDeviceDynamicRenderingFeaturesKHR rendering{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES_KHR};
    VkPhysicalDeviceSynchronization2FeaturesKHR sync2{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES_KHR};
    VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};

    // Links the structs; the extension ones only where the extension is enabled or queried.
    void link(bool with_rendering, bool with_sync2) {
        void* next = &v11;
        v11.pNext = &v12;
        v12.pNext = nullptr;
        if (with_sync2) {
            sync2.pNext = next;
            next = &sync2;
        }
        if (with_rendering) {
            rendering.pNext = next;
            next = &rendering;
        }
        features.pNext = next;
    }
    FeatureChain() = default;
    FeatureChain(const FeatureChain&) = delete;  // holds pointers into itself
    FeatureChain& operator=(const FeatureChain&) = delete;
};

// What the device supports of DeviceFeatures (graphics_queue is set by the caller).
DeviceFeatures supported_features(VkPhysicalDevice handle,
                                  const std::vector<VkExtensionProperties>& extensions) {
    DeviceFeatures out;
    const bool rendering_ext = has_extension(extensions, VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME);
    const bool sync2_ext = has_extension(extensions, VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME);
    FeatureChain chain;
    chain.link(rendering_ext, sync2_ext);
    vkGetPhysicalDeviceFeatures2(handle, &chain.features);
    VkPhysicalDeviceProperties properties{};
    vkGetPhysicalDeviceProperties(handle, &properties);

    out.dynamic_rendering = rendering_ext && chain.rendering.dynamicRendering;
    out.synchronization2 = sync2_ext && chain.sync2.synchronization2;
    out.draw_indirect_count = chain.v12.drawIndirectCount;
    out.multi_draw_indirect = chain.features.features.multiDrawIndirect;
    out.shader_clip_distance = chain.features.features.shaderClipDistance;
    out.shader_draw_parameters = chain.v11.shaderDrawParameters;
    out.sampler_anisotropy = chain.features.features.samplerAnisotropy;
    out.pipeline_statistics = chain.features.features.pipelineStatisticsQuery;
    out.texture_compression_bc = chain.features.features.textureCompressionBC;
    out.runtime_descriptor_array = chain.v12.runtimeDescriptorArray;
    out.sampled_image_array_non_uniform_indexing =
        chain.v12.shaderSampledImageArrayNonUniformIndexing;
    out.descriptor_binding_partially_bound = chain.v12.descriptorBindingPartiallyBound;
    out.descriptor_binding_variable_count = chain.v12.descriptorBindingVariableDescriptorCount;
    out.memory_budget = has_extension(extensions, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    out.max_sampler_anisotropy =
        out.sampler_anisotropy ? properties.limits.maxSamplerAnisotropy : 1.0f;
    out.max_image_array_layers = properties.limits.maxImageArrayLayers;
    return out;
}

// Sets the enable flags for `on` (plus what batchsim always needs) in `chain`.
void request_features(const DeviceFeatures& on, FeatureChain& chain) {
    chain.link(on.dynamic_rendering, on.synchronization2);
    chain.rendering.dynamicRendering = on.dynamic_rendering;
    chain.sync2.synchronization2 = on.synchronization2;
    chain.v11.shaderDrawParameters = on.shader_draw_parameters;
    chain.v12.timelineSemaphore = VK_TRUE;
    chain.v12.bufferDeviceAddress = VK_TRUE;
    chain.v12.drawIndirectCount = on.draw_indirect_count;
    chain.v12.runtimeDescriptorArray = on.runtime_descriptor_array;
    chain.v12.shaderSampledImageArrayNonUniformIndexing =
        on.sampled_image_array_non_uniform_indexing;
    chain.v12.descriptorBindingPartiallyBound = on.descriptor_binding_partially_bound;
    chain.v12.descriptorBindingVariableDescriptorCount = on.descriptor_binding_variable_count;
    chain.features.features.shaderInt64 = VK_TRUE;
    chain.features.features.multiDrawIndirect = on.multi_draw_indirect;
    chain.features.features.shaderClipDistance = on.shader_clip_distance;
    chain.features.features.samplerAnisotropy = on.sampler_anisotropy;
    chain.features.features.pipelineStatisticsQuery = on.pipeline_statistics;
    chain.features.features.textureCompressionBC = on.texture_compression_bc;
}

std::vector<const char*> device_extensions(const DeviceConfig& config, const DeviceFeatures& on) {
    std::vector<const char*> extensions;
    if (config.external_interop)
        for (const char* name : interop_extensions()) extensions.push_back(name);
    if (on.dynamic_rendering) extensions.push_back(VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME);
    if (on.synchronization2) extensions.push_back(VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME);
    if (on.memory_budget) extensions.push_back(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    return extensions;
}

template <typename Function>
Function load(VkDevice device, const char* name) {
    const auto function = reinterpret_cast<Function>(vkGetDeviceProcAddr(device, name));
    BATCHSIM_CHECK(function != nullptr, Vulkan, str("the Vulkan driver does not export ", name));
    return function;
}

DeviceFunctions load_functions(VkDevice device, const DeviceFeatures& on) {
    DeviceFunctions f;
    if (on.synchronization2) {
        f.cmd_pipeline_barrier2 =
            load<PFN_vkCmdPipelineBarrier2KHR>(device, "vkCmdPipelineBarrier2KHR");
        f.queue_submit2 = load<PFN_vkQueueSubmit2KHR>(device, "vkQueueSubmit2KHR");
    }
    if (on.dynamic_rendering) {
        f.cmd_begin_rendering = load<PFN_vkCmdBeginRenderingKHR>(device, "vkCmdBeginRenderingKHR");
        f.cmd_end_rendering = load<PFN_vkCmdEndRenderingKHR>(device, "vkCmdEndRenderingKHR");
    }
    return f;
}

}  // namespace

Device create_device(const PhysicalDeviceInfo& physical, const DeviceConfig& config) {
    BATCHSIM_CHECK(
        physical.usable(), Unsupported,
        str("Vulkan device '", physical.name, "' lacks ", join(physical.missing_requirements)));
    BATCHSIM_CHECK(!config.external_interop || physical.supports_interop(), Unsupported,
                   str("Vulkan device '", physical.name,
                       "' cannot share memory with CUDA: it "
                       "lacks the extensions ",
                       join(physical.missing_interop_extensions)));

    Device device;
    device.info = physical;
    const QueueFamilies families = choose_queue_families(physical);
    device.queue_family = families.main;
    device.transfer_family = families.transfer;
    device.external_interop = config.external_interop;
    device.features = supported_features(physical.handle, extension_properties(physical.handle));
    device.features.graphics_queue = families.main_has_graphics;

    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_infos[2] = {{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO},
                                              {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO}};
    const std::uint32_t queue_families[2] = {device.queue_family, device.transfer_family};
    for (int i = 0; i < 2; ++i) {
        queue_infos[i].queueFamilyIndex = queue_families[i];
        queue_infos[i].queueCount = 1;
        queue_infos[i].pQueuePriorities = &priority;
    }

    FeatureChain chain;
    request_features(device.features, chain);
    const std::vector<const char*> extensions = device_extensions(config, device.features);
    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &chain.features};
    info.queueCreateInfoCount = device.dedicated_transfer() ? 2 : 1;
    info.pQueueCreateInfos = queue_infos;
    info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    VK_CHECK(vkCreateDevice(physical.handle, &info, nullptr, &device.handle));
    try {
        device.functions = load_functions(device.handle, device.features);
    } catch (...) {
        destroy_device(device);
        throw;
    }
    vkGetDeviceQueue(device.handle, device.queue_family, 0, &device.queue);
    vkGetDeviceQueue(device.handle, device.transfer_family, 0, &device.transfer_queue);
    vkGetPhysicalDeviceMemoryProperties(physical.handle, &device.memory_properties);
    return device;
}

void destroy_device(Device& device) {
    if (device.handle != VK_NULL_HANDLE) {
        const std::lock_guard lock(*device.queue_mutex);
        vkDeviceWaitIdle(device.handle);
        vkDestroyDevice(device.handle, nullptr);
    }
    device.handle = VK_NULL_HANDLE;
}

std::vector<std::string> missing_features(const DeviceFeatures& features,
                                          const DeviceFeatures& wanted) {
    using Flag = bool DeviceFeatures::*;
    static constexpr std::pair<Flag, const char*> kNames[] = {
        {&DeviceFeatures::graphics_queue, "a graphics queue"},
        {&DeviceFeatures::dynamic_rendering, "dynamicRendering"},
        {&DeviceFeatures::synchronization2, "synchronization2"},
        {&DeviceFeatures::draw_indirect_count, "drawIndirectCount"},
        {&DeviceFeatures::multi_draw_indirect, "multiDrawIndirect"},
        {&DeviceFeatures::shader_clip_distance, "shaderClipDistance"},
        {&DeviceFeatures::shader_draw_parameters, "shaderDrawParameters"},
        {&DeviceFeatures::sampler_anisotropy, "samplerAnisotropy"},
        {&DeviceFeatures::pipeline_statistics, "pipelineStatisticsQuery"},
        {&DeviceFeatures::texture_compression_bc, "textureCompressionBC"},
        {&DeviceFeatures::runtime_descriptor_array, "runtimeDescriptorArray"},
        {&DeviceFeatures::sampled_image_array_non_uniform_indexing,
         "shaderSampledImageArrayNonUniformIndexing"},
        {&DeviceFeatures::descriptor_binding_partially_bound, "descriptorBindingPartiallyBound"},
        {&DeviceFeatures::descriptor_binding_variable_count,
         "descriptorBindingVariableDescriptorCount"},
        {&DeviceFeatures::memory_budget, "VK_EXT_memory_budget"},
    };
    std::vector<std::string> missing;
    for (const auto& [flag, name] : kNames)
        if (wanted.*flag && !(features.*flag)) missing.emplace_back(name);
    return missing;
}

HeapBudget device_local_budget(const Device& device) {
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 properties{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2,
        device.features.memory_budget ? &budget : nullptr};
    vkGetPhysicalDeviceMemoryProperties2(device.info.handle, &properties);
    const VkPhysicalDeviceMemoryProperties& memory = properties.memoryProperties;
    HeapBudget out;
    for (std::uint32_t i = 0; i < memory.memoryHeapCount; ++i) {
        if (!(memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)) continue;
        if (memory.memoryHeaps[i].size <= out.size) continue;
        out.size = memory.memoryHeaps[i].size;
        out.available = out.size;
        if (device.features.memory_budget) {
            const VkDeviceSize used = budget.heapUsage[i];
            out.available = budget.heapBudget[i] > used ? budget.heapBudget[i] - used : 0;
            out.measured = true;
        }
    }
    return out;
}

}  // namespace batchsim::vk
