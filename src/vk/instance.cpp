#include "vk/instance.hpp"

#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

#include "core/check.hpp"

namespace batchsim::vk {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

std::atomic<std::uint64_t> g_validation_total{0};
std::atomic<std::uint64_t> g_suppressed_total{0};

// "Still in use" reports that follow from the layer not seeing CUDA's semaphore signals.
constexpr std::string_view kExternalSignalArtefacts[] = {
    "VUID-vkBeginCommandBuffer-commandBuffer-00049",
    "VUID-vkResetCommandBuffer-commandBuffer-00045",
    "VUID-vkQueueSubmit-pCommandBuffers-00071",
    "VUID-vkDestroyPipeline-pipeline-00765",
    "VUID-vkDestroyBuffer-buffer-00922",
    "VUID-vkFreeMemory-memory-00677",
    "VUID-vkDestroySemaphore-semaphore-01137",
    "VUID-vkDestroyCommandPool-commandPool-00041",
    "VUID-vkResetCommandPool-commandPool-00040",
    "VUID-vkDestroyQueryPool-queryPool-00793",
    "VUID-vkUpdateDescriptorSets-None-03047",  // a set bound by a command buffer "pending"
};

bool is_external_signal_artefact(const ValidationState& state, const char* id) {
    if (!state.external_signals.load() || id == nullptr) return false;
    for (const auto artefact : kExternalSignalArtefacts)
        if (artefact == id) return true;
    return false;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT /*types*/,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user_data) {
    auto* state = static_cast<ValidationState*>(user_data);
    if (is_external_signal_artefact(*state, data->pMessageIdName)) {
        state->suppressed.fetch_add(1, std::memory_order_relaxed);
        g_suppressed_total.fetch_add(1, std::memory_order_relaxed);
        return VK_FALSE;
    }
    state->messages.fetch_add(1, std::memory_order_relaxed);
    g_validation_total.fetch_add(1, std::memory_order_relaxed);
    const char* level =
        (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning";
    std::fprintf(stderr, "[batchsim] Vulkan validation %s: %s\n", level,
                 data->pMessage ? data->pMessage : "(no message)");
    return VK_FALSE;  // never abort the call: the counter is what tests assert on
}

VkDebugUtilsMessengerCreateInfoEXT messenger_info(ValidationState* state) {
    VkDebugUtilsMessengerCreateInfoEXT info{
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    info.pfnUserCallback = on_validation_message;
    info.pUserData = state;
    return info;
}

void create_messenger(Instance& instance) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance.handle, "vkCreateDebugUtilsMessengerEXT"));
    BATCHSIM_CHECK(create != nullptr, Internal, "vkCreateDebugUtilsMessengerEXT is missing");
    const auto info = messenger_info(instance.validation.get());
    VK_CHECK(create(instance.handle, &info, nullptr, &instance.messenger));
}

}  // namespace

bool validation_layer_available() {
    std::uint32_t count = 0;
    VK_CHECK(vkEnumerateInstanceLayerProperties(&count, nullptr));
    std::vector<VkLayerProperties> layers(count);
    VK_CHECK(vkEnumerateInstanceLayerProperties(&count, layers.data()));
    for (const auto& layer : layers)
        if (std::strcmp(layer.layerName, kValidationLayer) == 0) return true;
    return false;
}

std::uint64_t validation_message_total() {
    return g_validation_total.load(std::memory_order_relaxed);
}

std::uint64_t validation_suppressed_total() {
    return g_suppressed_total.load(std::memory_order_relaxed);
}

namespace {

// The loader unloads the drivers at every vkDestroyInstance and loads them again at the next
// vkCreateInstance. NVIDIA's driver takes static TLS (libnvidia-tls), which glibc does not
// give back on unload, so a process that makes many contexts (the test suites) ran out of
// it: "cannot allocate memory in static TLS block", then VK_ERROR_INCOMPATIBLE_DRIVER. One
// instance without layers, made once and never destroyed, keeps the drivers loaded for the
// life of the process. If it fails, the caller's own vkCreateInstance reports why.
void keep_drivers_loaded() {
    static const bool kept = [] {
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.pApplicationName = "batchsim driver anchor";
        app.apiVersion = VK_API_VERSION_1_2;
        VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        info.pApplicationInfo = &app;
        VkInstance anchor = VK_NULL_HANDLE;
        return vkCreateInstance(&info, nullptr, &anchor) == VK_SUCCESS;
    }();
    (void)kept;
}

}  // namespace

Instance create_instance(const InstanceConfig& config) {
    keep_drivers_loaded();
    Instance instance;
    instance.validation = std::make_unique<ValidationState>();
    instance.validation_enabled = config.validation && validation_layer_available();

    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "batchsim";
    app.pEngineName = "batchsim";
    app.apiVersion = VK_API_VERSION_1_2;

    std::vector<const char*> layers;
    std::vector<const char*> extensions;
    // Chained into the create info too, so instance creation itself is validated.
    auto debug_info = messenger_info(instance.validation.get());
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    if (instance.validation_enabled) {
        layers.push_back(kValidationLayer);
        extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        info.pNext = &debug_info;
    }
    info.pApplicationInfo = &app;
    info.enabledLayerCount = static_cast<std::uint32_t>(layers.size());
    info.ppEnabledLayerNames = layers.data();
    info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    VK_CHECK(vkCreateInstance(&info, nullptr, &instance.handle));
    if (instance.validation_enabled) create_messenger(instance);
    return instance;
}

void destroy_instance(Instance& instance) {
    if (instance.messenger != VK_NULL_HANDLE) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance.handle, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(instance.handle, instance.messenger, nullptr);
        instance.messenger = VK_NULL_HANDLE;
    }
    if (instance.handle != VK_NULL_HANDLE) vkDestroyInstance(instance.handle, nullptr);
    instance.handle = VK_NULL_HANDLE;
}

}  // namespace batchsim::vk
