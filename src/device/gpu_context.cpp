#include "device/gpu_context.hpp"

#include <cstdlib>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "vk/command.hpp"
#include "vk/instance.hpp"
#include "vk/sync.hpp"

namespace batchsim::device {
namespace {

// Command buffers in flight at once: enough that recording never waits on the GPU in
// steady state (one being recorded, one executing, one retiring).
constexpr std::uint32_t kCommandRingSize = 4;

std::string effective_selector(const std::string& configured) {
    const char* env = std::getenv("BATCHSIM_DEVICE");
    return (env && *env) ? std::string(env) : configured;
}

// "cuda:N" becomes the UUID selector of CUDA device N; other selectors pass through.
std::string resolve_cuda_selector(const std::string& selector) {
    if (!selector.starts_with("cuda:")) return selector;
    const std::string number = selector.substr(5);
    char* end = nullptr;
    const long ordinal = std::strtol(number.c_str(), &end, 10);
    BATCHSIM_CHECK(!number.empty() && end && *end == '\0' && ordinal >= 0, InvalidArgument,
                   str("device selector '", selector, "' is malformed: expected cuda:<n>"));
    return "uuid:" + vk::uuid_string(cuda::device_uuid(static_cast<int>(ordinal)));
}

// With no selector, the Vulkan twin of CUDA device 0 when there is one: CUDA numbers only
// the GPUs CUDA_VISIBLE_DEVICES leaves visible, so a process given one GPU renders on it
// (Vulkan itself lists every GPU). Otherwise the best Vulkan device.
const vk::PhysicalDeviceInfo& default_device(std::span<const vk::PhysicalDeviceInfo> physicals,
                                             ExportTarget target) {
    if (target != ExportTarget::Cpu && cuda::driver(nullptr) != nullptr) {
        for (const auto& physical : physicals) {
            if (physical.usable() && cuda::find_ordinal(physical.uuid) == 0) return physical;
        }
    }
    return vk::select_physical_device(physicals, "");
}

// The CUDA ordinal to export to, or -1 for CPU export.
int choose_cuda_ordinal(const vk::PhysicalDeviceInfo& physical, ExportTarget target) {
    if (target == ExportTarget::Cpu) return -1;
    std::string why_not;
    const bool has_cuda = cuda::driver(&why_not) != nullptr;
    const int ordinal = has_cuda ? cuda::find_ordinal(physical.uuid) : -1;
    if (target == ExportTarget::Auto)
        return physical.type != VK_PHYSICAL_DEVICE_TYPE_CPU && physical.supports_interop() ? ordinal
                                                                                           : -1;
    BATCHSIM_CHECK(has_cuda, Unsupported, str("export to CUDA was requested but ", why_not));
    BATCHSIM_CHECK(ordinal >= 0, Unsupported,
                   str("export to CUDA was requested but no CUDA device has the UUID of ",
                       vk::describe(physical)));
    BATCHSIM_CHECK(physical.supports_interop(), Unsupported,
                   str("export to CUDA was requested but '", physical.name, "' lacks ",
                       join(physical.missing_interop_extensions)));
    return ordinal;
}

}  // namespace

std::vector<vk::PhysicalDeviceInfo> list_vulkan_devices() {
    vk::Instance instance = vk::create_instance({.validation = false});
    try {
        auto devices = vk::enumerate_physical_devices(instance.handle);
        vk::destroy_instance(instance);
        return devices;
    } catch (...) {
        vk::destroy_instance(instance);
        throw;
    }
}

// Where one CUDA stream tells the queue that it has read the results: a timeline that only
// that stream signals, so its values rise in the stream's own order. One timeline shared by
// several streams (and the queue) rose out of order when two Simulators stepped at once on
// one context; a lowered value then left a submission waiting for ever.
struct ConsumerTimeline {
    cuda::CUstream stream = nullptr;
    VkSemaphore semaphore = VK_NULL_HANDLE;
    cuda::ImportedTimeline imported;
    std::uint64_t last_value = 0;  // the value its last signal sets
};

// Streams are few in practice (torch pools them); a context handed to more refuses rather
// than gathering semaphores without bound.
constexpr std::size_t kMaxConsumerStreams = 256;

struct GpuContext::Impl {
    vk::Instance instance;
    vk::Device device;
    cuda::CudaDevice cuda;
    VkSemaphore timeline = VK_NULL_HANDLE;  // signalled by the queue only
    cuda::ImportedTimeline cuda_timeline;
    std::vector<ConsumerTimeline> consumers;  // CUDA export: one per consumer stream
    vk::CommandRing ring;
    std::mutex submit_mutex;
    std::mutex host_step_mutex;
    std::uint64_t last_value = 0;  // highest timeline value any submission signals

    void create(const Config& config);
    void destroy() noexcept;
    ConsumerTimeline& consumer(cuda::CUstream stream);

    // Orders one submission: it waits until the consumer stream has read the previous
    // results (CUDA export) and signals the next timeline value, which the stream then
    // waits for. Returns that value. Call with submit_mutex held.
    template <typename Submit>
    std::uint64_t ordered_submit(std::uintptr_t cuda_stream, Submit&& submit) {
        const auto stream = reinterpret_cast<cuda::CUstream>(cuda_stream);
        ConsumerTimeline* reads_done = cuda.ordinal >= 0 ? &consumer(stream) : nullptr;
        vk::SubmitOrder order{.timeline = timeline, .signal_value = last_value + 1};
        if (reads_done != nullptr) {
            order.wait_semaphore = reads_done->semaphore;
            order.wait_value = ++reads_done->last_value;
            cuda::signal_on_stream(cuda, reads_done->imported, order.wait_value, stream);
        }
        submit(order);
        last_value = order.signal_value;  // only once submitted: waits for it must end
        if (reads_done != nullptr)
            cuda::wait_on_stream(cuda, cuda_timeline, order.signal_value, stream);
        return order.signal_value;
    }
};

ConsumerTimeline& GpuContext::Impl::consumer(cuda::CUstream stream) {
    for (ConsumerTimeline& known : consumers)
        if (known.stream == stream) return known;
    BATCHSIM_CHECK(consumers.size() < kMaxConsumerStreams, InvalidArgument,
                   str("results of one GPU context were handed to more than ", kMaxConsumerStreams,
                       " CUDA streams; reuse streams (a stream pool)"));
    ConsumerTimeline added{.stream = stream,
                           .semaphore = vk::create_timeline_semaphore(device, true)};
    try {
        added.imported = cuda::import_timeline(cuda, device, added.semaphore);
    } catch (...) {
        vk::destroy_semaphore(device, added.semaphore);
        throw;
    }
    return consumers.emplace_back(added);
}

void GpuContext::Impl::create(const Config& config) {
    const std::string selector = resolve_cuda_selector(effective_selector(config.device));
    instance = vk::create_instance({.validation = config.validation});
    const auto physicals = vk::enumerate_physical_devices(instance.handle);
    const auto& physical = selector.empty() ? default_device(physicals, config.export_target)
                                            : vk::select_physical_device(physicals, selector);
    const int ordinal = choose_cuda_ordinal(physical, config.export_target);

    device = vk::create_device(physical, {.external_interop = ordinal >= 0});
    timeline = vk::create_timeline_semaphore(device, ordinal >= 0);
    ring = vk::create_command_ring(device, kCommandRingSize);
    if (ordinal >= 0) {
        instance.validation->external_signals = true;
        cuda = cuda::open_device(ordinal);
        cuda_timeline = cuda::import_timeline(cuda, device, timeline);
    }
}

void GpuContext::Impl::destroy() noexcept {
    // Work may still run on memory left to it: destroying the device (or unloading the
    // driver with the instance) would free that memory under it. The process's exit will.
    if (device.abandoned->load()) return;
    if (device.handle != VK_NULL_HANDLE) {
        const std::lock_guard lock(*device.queue_mutex);
        vkDeviceWaitIdle(device.handle);
    }
    cuda::release_timeline(cuda, cuda_timeline);
    for (ConsumerTimeline& consumer : consumers) cuda::release_timeline(cuda, consumer.imported);
    cuda::close_device(cuda);
    if (device.handle != VK_NULL_HANDLE) {
        vk::destroy_command_ring(device, ring);
        vk::destroy_semaphore(device, timeline);
        for (ConsumerTimeline& consumer : consumers)
            vk::destroy_semaphore(device, consumer.semaphore);
    }
    vk::destroy_device(device);
    vk::destroy_instance(instance);
}

GpuContext::GpuContext(const Config& config) : impl_(std::make_unique<Impl>()) {
    try {
        impl_->create(config);
    } catch (...) {
        impl_->destroy();
        throw;
    }
}

GpuContext::~GpuContext() {
    impl_->destroy();
}

const vk::Device& GpuContext::device() const {
    return impl_->device;
}
bool GpuContext::exports_cuda() const {
    return impl_->cuda.ordinal >= 0;
}
int GpuContext::cuda_ordinal() const {
    return impl_->cuda.ordinal;
}
std::uint64_t GpuContext::device_local_available() const {
    return vk::device_local_budget(impl_->device).available;
}

const cuda::CudaDevice& GpuContext::cuda_device() const {
    return impl_->cuda;
}
bool GpuContext::validation_enabled() const {
    return impl_->instance.validation_enabled;
}
std::uint64_t GpuContext::validation_messages() const {
    return impl_->instance.validation->messages.load();
}

GpuContext::Recording GpuContext::begin() {
    Recording recording;
    recording.lock_ = std::unique_lock(impl_->submit_mutex);
    recording.commands_ = vk::begin_commands(impl_->device, impl_->ring, impl_->timeline);
    return recording;
}

void GpuContext::submit(Recording& recording, std::uintptr_t cuda_stream) {
    BATCHSIM_CHECK(recording.lock_.owns_lock(), Internal, "submit() of a finished recording");
    Impl& s = *impl_;
    const std::uint64_t done = s.ordered_submit(cuda_stream, [&](const vk::SubmitOrder& order) {
        vk::submit_commands(s.device, s.ring, order);
    });
    if (!exports_cuda()) vk::wait_timeline(s.device, s.timeline, done, "a submission's work");
    recording.lock_.unlock();
}

std::uint64_t GpuContext::submit_recorded(VkCommandBuffer commands, std::uintptr_t cuda_stream) {
    Impl& s = *impl_;
    std::lock_guard lock(s.submit_mutex);
    return s.ordered_submit(cuda_stream, [&](const vk::SubmitOrder& order) {
        vk::submit_buffer(s.device, commands, order);
    });
}

void GpuContext::wait_for(std::uint64_t value, std::string_view what) {
    if (value > 0) vk::wait_timeline(impl_->device, impl_->timeline, value, what);
}

void GpuContext::make_visible(std::uintptr_t cuda_stream) {
    std::lock_guard lock(impl_->submit_mutex);
    if (!exports_cuda() || impl_->last_value == 0) return;
    cuda::wait_on_stream(impl_->cuda, impl_->cuda_timeline, impl_->last_value,
                         reinterpret_cast<cuda::CUstream>(cuda_stream));
}

std::mutex& GpuContext::host_step_mutex() {
    return impl_->host_step_mutex;
}

bool GpuContext::settle(std::string_view what) noexcept {
    try {
        wait_idle();
        return true;
    } catch (const std::exception&) {  // a hang, or a lost device
        vk::abandon_to_running_work(impl_->device, what);
        return false;
    }
}

void GpuContext::wait_idle() {
    std::lock_guard lock(impl_->submit_mutex);
    if (impl_->last_value > 0)
        vk::wait_timeline(impl_->device, impl_->timeline, impl_->last_value,
                          "every submission so far");
}

}  // namespace batchsim::device
