// The logical device: a main graphics+compute queue (and a dedicated transfer queue where the
// device has one), the features batchsim uses, optional CUDA interop.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "vk/physical_device.hpp"

namespace batchsim::vk {

struct DeviceConfig {
    bool external_interop = false;  // enable memory/semaphore fd export (for CUDA)
};

// Optional features, enabled whenever the device supports them. Field comments give the
// spec names, which missing_features() reports.
struct DeviceFeatures {
    bool graphics_queue = false;          // the main queue family has GRAPHICS
    bool dynamic_rendering = false;       // dynamicRendering (VK_KHR_dynamic_rendering)
    bool synchronization2 = false;        // synchronization2 (VK_KHR_synchronization2)
    bool draw_indirect_count = false;     // drawIndirectCount
    bool multi_draw_indirect = false;     // multiDrawIndirect
    bool shader_clip_distance = false;    // shaderClipDistance
    bool shader_draw_parameters = false;  // shaderDrawParameters
    bool sampler_anisotropy = false;      // samplerAnisotropy
    bool pipeline_statistics = false;     // pipelineStatisticsQuery (profiling)
    bool texture_compression_bc = false;  // textureCompressionBC (BC1 scene textures)
    // An array of sampled images indexed per draw: the four descriptor indexing pieces.
    bool runtime_descriptor_array = false;  // runtimeDescriptorArray
    bool sampled_image_array_non_uniform_indexing =
        false;                                        // shaderSampledImageArrayNonUniformIndexing
    bool descriptor_binding_partially_bound = false;  // descriptorBindingPartiallyBound
    bool descriptor_binding_variable_count = false;   // descriptorBindingVariableDescriptorCount
    bool memory_budget = false;                       // VK_EXT_memory_budget
    float max_sampler_anisotropy = 1.0f;              // limit, 1 when anisotropy is off
    std::uint32_t max_image_array_layers = 256;       // limit (256: the spec's minimum)
};

// Entry points of the extensions above. The instance targets Vulkan 1.2, so the Vulkan 1.3
// features come from their KHR extensions and are called through these (null when off).
struct DeviceFunctions {
    PFN_vkCmdPipelineBarrier2KHR cmd_pipeline_barrier2 = nullptr;
    PFN_vkQueueSubmit2KHR queue_submit2 = nullptr;
    PFN_vkCmdBeginRenderingKHR cmd_begin_rendering = nullptr;
    PFN_vkCmdEndRenderingKHR cmd_end_rendering = nullptr;
};

struct Device {
    PhysicalDeviceInfo info;
    VkDevice handle = VK_NULL_HANDLE;
    // The main queue: graphics+compute (compute only on a device without graphics).
    VkQueue queue = VK_NULL_HANDLE;
    std::uint32_t queue_family = 0;
    // A transfer-only queue for uploads; equal to queue/queue_family when the device has none.
    VkQueue transfer_queue = VK_NULL_HANDLE;
    std::uint32_t transfer_family = 0;
    bool external_interop = false;
    // Held around every vkQueueSubmit and wait-idle on either queue: Vulkan wants a queue used
    // from one thread at a time, and renderers, uploads and Simulators on one context submit
    // from threads of their own (unsynchronised submits lost the device on an H100). Shared by
    // the struct's copies.
    std::shared_ptr<std::mutex> queue_mutex = std::make_shared<std::mutex>();
    // Set once memory was left allocated to work that may still run (a wait for it timed
    // out, vk::abandon_to_running_work): the device is then never destroyed either, since
    // that would free what the work uses. Shared by the struct's copies.
    std::shared_ptr<std::atomic<bool>> abandoned = std::make_shared<std::atomic<bool>>(false);
    DeviceFeatures features;
    DeviceFunctions functions;
    VkPhysicalDeviceMemoryProperties memory_properties{};

    [[nodiscard]] bool dedicated_transfer() const { return transfer_family != queue_family; }
};

// Throws Unsupported naming the missing extensions if interop is asked for but absent.
Device create_device(const PhysicalDeviceInfo& physical, const DeviceConfig& config);
void destroy_device(Device& device);

// Spec names of the features set in `wanted` that `features` lacks, e.g. {"dynamicRendering",
// "runtimeDescriptorArray"}; "a graphics queue" for graphics_queue. For clear Unsupported errors.
std::vector<std::string> missing_features(const DeviceFeatures& features,
                                          const DeviceFeatures& wanted);

// The largest device-local heap: its size and the bytes this process may still allocate from
// it (VK_EXT_memory_budget's budget minus usage; without the extension, the heap size).
struct HeapBudget {
    VkDeviceSize size = 0;
    VkDeviceSize available = 0;
    bool measured = false;  // true when VK_EXT_memory_budget reported `available`
};
HeapBudget device_local_budget(const Device& device);

}  // namespace batchsim::vk
