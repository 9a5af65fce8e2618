#include "device/cuda_event.hpp"

#include "device/cuda_interop.hpp"

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

void synchronize_event(int ordinal, std::uintptr_t event) {
    const RetainedDevice retained(ordinal);
    const ContextScope current(retained.device());
    CU_CHECK(driver()->cuEventSynchronize(reinterpret_cast<CUevent>(event)));
}

}  // namespace batchsim::device::cuda
