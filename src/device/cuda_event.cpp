#include "device/cuda_event.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "core/wait_limit.hpp"
#include "device/cuda_interop.hpp"
#include "vk/sync.hpp"

namespace batchsim::device::cuda {
namespace {

// The device's primary context (PyTorch's) retained for a scope; a thread of our own has no
// current context, and making the event's current is what the driver's calls expect.
class RetainedDevice {
public:
    explicit RetainedDevice(int ordinal) : device_(open_device(ordinal)) {}
    ~RetainedDevice() { close_device(device_); }
    RetainedDevice(const RetainedDevice&) = delete;
    RetainedDevice& operator=(const RetainedDevice&) = delete;
    [[nodiscard]] const CudaDevice& device() const { return device_; }

private:
    CudaDevice device_;
};

}  // namespace

// Polls rather than cuEventSynchronize, which has no timeout: a stream that waits for a
// semaphore nobody signals would block the caller for ever.
void synchronize_event(int ordinal, std::uintptr_t event) {
    const RetainedDevice retained(ordinal);
    const ContextScope current(retained.device());
    const auto handle = reinterpret_cast<CUevent>(event);
    const WaitLimit limit = wait_limit(vk::kHostWaitTimeout, false);  // a GPU's: no CPU time
    const auto deadline = std::chrono::steady_clock::now() + limit.slice;
    // Short pauses: the step waits here for the policy's actions, and a late wake-up is lost
    // simulation time.
    auto pause = std::chrono::microseconds(5);
    for (;;) {
        const CUresult result = driver()->cuEventQuery(handle);
        if (result != CUDA_ERROR_NOT_READY) {
            CU_CHECK(result);
            return;
        }
        BATCHSIM_CHECK(std::chrono::steady_clock::now() < deadline, Timeout,
                       str("waited ", limit.slice_seconds(),
                           " s for the CUDA actions' event; the stream that records it is stuck"));
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(50));
    }
}

}  // namespace batchsim::device::cuda
