// src/device/ (batchsim::device): the owner of the GPU, GpuContext (below), and what hands
// its memory to consumers: CUDA interop (driver API loaded at run time, cuda_*.hpp) and
// PersistentTensor, buffers exported once as DLPack tensors (tensor.hpp).
//
// GpuContext: the owner of one Vulkan device (and, on NVIDIA, its CUDA twin) shared by
// every renderer, tensor and kernel of a process. It orders GPU work against its consumers
// with timeline semaphores:
//
//   CPU export:  submit signals v on the context's timeline; the host waits for v before
//                results are read.
//   CUDA export: the consumer stream signals u on a timeline of its own (its reads of the
//                last results are done), the submission waits for u and signals v, and the
//                stream waits for v before anything enqueued after it runs. Nobody blocks on
//                the host. Only the queue signals the context's timeline, and each stream
//                only its own, so every timeline rises in order however many Simulators
//                and streams share the context.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "device/cuda_interop.hpp"
#include "vk/device.hpp"

namespace batchsim::device {

enum class ExportTarget {
    Auto,  // CUDA when the Vulkan device is an NVIDIA GPU CUDA can see, else CPU
    Cpu,   // host-visible memory, DLPack kDLCPU
    Cuda,  // device memory imported into CUDA, DLPack kDLCUDA
};

// Every Vulkan device of this machine, as `batchsim doctor` and device errors list them.
std::vector<vk::PhysicalDeviceInfo> list_vulkan_devices();

class GpuContext {
public:
    struct Config {
        // "" (best device), an index "1", "uuid:<hex>", "cuda:<n>" or part of a device
        // name. The environment variable BATCHSIM_DEVICE, when set, takes precedence.
        std::string device;
        bool validation = false;  // Khronos validation layer, when installed
        ExportTarget export_target = ExportTarget::Auto;
    };

    // A command buffer being recorded; holds the submission lock until submitted.
    class Recording {
    public:
        [[nodiscard]] VkCommandBuffer commands() const { return commands_; }

    private:
        friend class GpuContext;
        std::unique_lock<std::mutex> lock_;
        VkCommandBuffer commands_ = VK_NULL_HANDLE;
    };

    explicit GpuContext(const Config& config);
    ~GpuContext();
    GpuContext(const GpuContext&) = delete;
    GpuContext& operator=(const GpuContext&) = delete;

    [[nodiscard]] const vk::Device& device() const;
    [[nodiscard]] bool exports_cuda() const;
    [[nodiscard]] int cuda_ordinal() const;  // -1 for CPU export
    [[nodiscard]] bool validation_enabled() const;
    [[nodiscard]] std::uint64_t validation_messages() const;  // this context's instance
    // Device-local bytes this process may still allocate (vk::device_local_budget).
    [[nodiscard]] std::uint64_t device_local_available() const;

    Recording begin();
    // Submits; `cuda_stream` (a CUstream handle, 1 = legacy default) is the consumer for
    // CUDA export and ignored for CPU export, where this returns once the GPU is done.
    void submit(Recording& recording, std::uintptr_t cuda_stream);
    // Submits a command buffer the caller recorded (and may reuse once it is done), ordered
    // like submit(). Returns the timeline value that marks it done; with CPU export it does
    // not wait: call wait_for(value) before reading what it wrote.
    std::uint64_t submit_recorded(VkCommandBuffer commands, std::uintptr_t cuda_stream);
    // Blocks until the submission that returned `value` has finished on the GPU; `what` it
    // is names it in the timeout error.
    void wait_for(std::uint64_t value, std::string_view what);
    // Makes the latest submission's results visible to work enqueued on `cuda_stream`.
    void make_visible(std::uintptr_t cuda_stream);
    // Blocks until every submission so far has finished on the GPU.
    void wait_idle();
    // Before freeing memory or objects submissions may use: wait_idle(), true once nothing
    // submitted still runs. False when that wait failed (a hang, the limit of
    // BATCHSIM_WAIT_TIMEOUT_S, a lost device): the caller must then leak what it would free
    // (`what` names it in a warning), since freeing what the device still executes crashed
    // the process (issue 40); the context then leaks its device too. Never throws.
    [[nodiscard]] bool settle(std::string_view what) noexcept;

    // Held by a Simulator on this context for its host step (simulation and submission), so
    // that Simulators sharing the context take turns on the CPU cores: two halves of a
    // batch stepped at once would each run at half speed and fall into step, rendering
    // together and simulating together, where taking turns lets one half simulate while
    // the other renders (1.09-1.13x the pipeline's frames/s on an H100).
    [[nodiscard]] std::mutex& host_step_mutex();

    // The CUDA device buffers are imported into; only valid when exports_cuda().
    [[nodiscard]] const cuda::CudaDevice& cuda_device() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace batchsim::device
